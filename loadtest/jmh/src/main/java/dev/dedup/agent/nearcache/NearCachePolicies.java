package dev.dedup.agent.nearcache;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;
import org.openjdk.jol.info.GraphLayout;

/**
 * Which copies a near-cache catches, for three ways of letting Caffeine keep claims in the same heap: the
 * near-cache as it is (pages of 8-way sets, one page per page index, so that Caffeine never chooses a page
 * to drop and a full set replaces its oldest claim), pages with four times as many page indexes as fit (so
 * that Caffeine's eviction and admission choose which pages stay), and one Caffeine entry per id with a
 * window's expiry, bounded to the same heap.
 *
 * <p>The stream: fresh ids, each followed by a copy (the same id and owner: a retried task) with probability
 * 5 %, after one of the delays in {@link #DELAYS} (counted in fresh ids claimed since; at 5,000 ids/s, 1 M
 * ids is 3.3 minutes). It prints, per policy, the share of copies answered from the cache by delay, the heap
 * per id held (JOL, all reachable from the cache), and the nanoseconds per fresh id (puts and lookups). Run:
 * {@code java -Djdk.attach.allowAttachSelf=true -Djol.magicFieldOffset=true -cp
 * loadtest/jmh/target/dedup-benchmarks.jar dev.dedup.agent.nearcache.NearCachePolicies [capacity] [fresh]}
 * (defaults: the agent's 1,048,576 ids; 8,388,608 fresh ids).
 */
public final class NearCachePolicies {

    /** Delays of a copy behind its first claim, in fresh ids claimed meanwhile. */
    static final long[] DELAYS = {1_000, 10_000, 100_000, 250_000, 500_000, 750_000, 1_000_000, 2_000_000};

    private static final long WINDOW = Duration.ofHours(24).toMillis();
    private static final double COPY_SHARE = 0.05;

    /** One way of caching claims: put a claim, ask for one. */
    interface Policy {
        String name();

        void put(long key, long now);

        boolean hit(long key, long now);

        Object root();

        long held();
    }

    private NearCachePolicies() {}

    public static void main(String[] args) {
        long capacity = args.length > 0 ? Long.parseLong(args[0]) : 1L << 20;
        long fresh = args.length > 1 ? Long.parseLong(args[1]) : 1L << 23;
        double perIdEntryBytes = perIdEntryBytes();
        long perIdCapacity = (long) (capacity * 16.0 / perIdEntryBytes);
        System.out.printf(
                Locale.ROOT,
                "capacity %,d ids; %,d fresh ids, 5 %% copied; a Caffeine entry per id costs %.0f bytes, so the"
                        + " same heap holds %,d of them%n",
                capacity,
                fresh,
                perIdEntryBytes,
                perIdCapacity);
        List<Policy> policies = List.of(pagesAsShipped(capacity), pagesCaffeineChooses(capacity), perId(perIdCapacity));
        StringBuilder header = new StringBuilder(String.format(Locale.ROOT, "%-34s", "policy"));
        for (long d : DELAYS) {
            header.append(String.format(Locale.ROOT, "%9s", d >= 1_000_000 ? d / 1_000_000 + "M" : d / 1000 + "k"));
        }
        header.append("   bytes/id   ns/id");
        System.out.println(header);
        for (Policy policy : policies) {
            run(policy, fresh);
        }
    }

    private static void run(Policy policy, long fresh) {
        SplittableRandom random = new SplittableRandom(42);
        // Copies due, by the fresh-id count at which each is asked: a ring of pending keys per delay.
        int delays = DELAYS.length;
        long[] hits = new long[delays];
        long[] asked = new long[delays];
        List<long[]> rings = new ArrayList<>();
        int[] heads = new int[delays];
        int[] tails = new int[delays];
        for (long d : DELAYS) {
            rings.add(new long[(int) Math.max(1024, d * COPY_SHARE * 3 / delays) * 2]);
        }
        long started = System.nanoTime();
        for (long i = 1; i <= fresh; i++) {
            long now = i; // a millisecond per id: the window is far longer than any delay here
            long key = NearCacheGetPutBenchmark.key(i);
            policy.put(key, now);
            if (random.nextDouble() < COPY_SHARE) {
                int which = random.nextInt(delays);
                long[] ring = rings.get(which);
                ring[tails[which]] = key;
                ring[tails[which] + 1] = i + DELAYS[which];
                tails[which] = (tails[which] + 2) % ring.length;
            }
            for (int d = 0; d < delays; d++) {
                long[] ring = rings.get(d);
                while (heads[d] != tails[d] && ring[heads[d] + 1] <= i) {
                    boolean measured = i > 2 * DELAYS[delays - 1]; // after the cache has filled
                    boolean hit = policy.hit(ring[heads[d]], now);
                    if (measured) {
                        asked[d]++;
                        hits[d] += hit ? 1 : 0;
                    }
                    heads[d] = (heads[d] + 2) % ring.length;
                }
            }
        }
        long nanos = System.nanoTime() - started;
        long held = Math.max(1, policy.held());
        double bytesPerId = (double) GraphLayout.parseInstance(policy.root()).totalSize() / held;
        StringBuilder line = new StringBuilder(String.format(Locale.ROOT, "%-34s", policy.name()));
        for (int d = 0; d < delays; d++) {
            line.append(String.format(Locale.ROOT, "%8.1f%%", asked[d] == 0 ? 0 : 100.0 * hits[d] / asked[d]));
        }
        line.append(String.format(Locale.ROOT, "   %8.1f %7.0f", bytesPerId, (double) nanos / fresh));
        System.out.println(line);
    }

    private static Policy pagesAsShipped(long capacity) {
        NearCache cache = new NearCache(capacity, () -> 0, new SimpleMeterRegistry());
        return new Policy() {
            public String name() {
                return "pages, one index per page (agent)";
            }

            public void put(long key, long now) {
                cache.putUncounted(key, key, now + WINDOW, now);
            }

            public boolean hit(long key, long now) {
                return cache.lookup(key, key) == NearCache.SAME_OWNER;
            }

            public Object root() {
                return cache;
            }

            public long held() {
                return cache.capacity();
            }
        };
    }

    /** Pages of the shipped size, four page indexes per page that fits: Caffeine evicts and admits pages. */
    private static Policy pagesCaffeineChooses(long capacity) {
        int setsPerPage = NearCache.SETS_PER_PAGE;
        int pageSlots = setsPerPage * NearCache.WAYS;
        int indexes = (int) Math.max(4, 4 * capacity / pageSlots);
        Cache<Integer, Page> cache = Caffeine.newBuilder()
                .maximumWeight(capacity)
                .weigher((Integer i, Page p) -> pageSlots)
                .executor(Runnable::run)
                .build();
        return new Policy() {
            public String name() {
                return "pages, Caffeine chooses (4x indexes)";
            }

            public void put(long key, long now) {
                long h = key * 0x9E3779B97F4A7C15L;
                Page page = cache.get(pageOf(h), i -> new Page(setsPerPage));
                page.put(setOf(h), key, key, now + WINDOW, now);
            }

            public boolean hit(long key, long now) {
                long h = key * 0x9E3779B97F4A7C15L;
                Page page = cache.getIfPresent(pageOf(h));
                return page != null && page.lookup(setOf(h), key, key, now) == NearCache.SAME_OWNER;
            }

            private int pageOf(long h) {
                return (int) ((h >>> 32) * indexes >>> 32);
            }

            private int setOf(long h) {
                return (int) ((h & 0xFFFF_FFFFL) * setsPerPage >>> 32);
            }

            public Object root() {
                return cache;
            }

            public long held() {
                return cache.estimatedSize() * pageSlots;
            }
        };
    }

    /** A Caffeine entry per id, expiring a window after its claim, as many as fit in the agent's heap. */
    private static Policy perId(long entries) {
        Cache<Long, Long> cache = perIdCache(entries);
        return new Policy() {
            public String name() {
                return "an entry per id, same heap";
            }

            public void put(long key, long now) {
                cache.put(key, key);
            }

            public boolean hit(long key, long now) {
                Long owner = cache.getIfPresent(key);
                return owner != null && owner == key;
            }

            public Object root() {
                return cache;
            }

            public long held() {
                return cache.estimatedSize();
            }
        };
    }

    private static Cache<Long, Long> perIdCache(long entries) {
        return Caffeine.newBuilder()
                .maximumSize(entries)
                .expireAfterWrite(Duration.ofMillis(WINDOW))
                .executor(Runnable::run)
                .build();
    }

    /** Heap per entry of a full per-id cache (keys and owners as distinct boxed longs, as claims would be). */
    private static double perIdEntryBytes() {
        int n = 200_000;
        Cache<Long, Long> cache = perIdCache(n);
        for (long i = 1; i <= n; i++) {
            long key = NearCacheGetPutBenchmark.key(i);
            cache.put(key, key ^ 1);
        }
        cache.cleanUp();
        return (double) GraphLayout.parseInstance(cache).totalSize() / cache.estimatedSize();
    }
}
