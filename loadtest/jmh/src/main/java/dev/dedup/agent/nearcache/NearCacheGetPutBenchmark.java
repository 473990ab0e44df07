package dev.dedup.agent.nearcache;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.LongSupplier;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/** PROTOTYPE comparison: the table against Caffeine page variants, per id. */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = "-Xmx3g")
public class NearCacheGetPutBenchmark {

    static final int BATCH = 1000;
    private static final int HIT_KEYS = 1 << 20;
    private static final long WINDOW = TimeUnit.HOURS.toMillis(24);

    @Param({"table", "pages", "pages-expiring", "pages-recorded"})
    String impl;

    @Param({"4096"})
    int setsPerPage;

    @Param({"4194304"})
    long entries;

    interface Ops {
        int lookup(long key, long owner);

        void recordLookups(int hits, int misses);

        int put(long key, long owner, long end, long now);

        void recordPuts(int count, int intoEmpty, int evicting);
    }

    Ops cache;
    long[] hitKeys;
    long[] missKeys;
    final AtomicInteger threads = new AtomicInteger();
    final LongSupplier clock = System::currentTimeMillis;

    static long mix(long z) {
        z = (z ^ (z >>> 30)) * 0xbf58476d1ce4e5b9L;
        z = (z ^ (z >>> 27)) * 0x94d049bb133111ebL;
        return (z ^ (z >>> 31)) | 1;
    }

    @Setup
    public void fill() {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        if (impl.equals("table")) {
            NearCache c = new NearCache(entries, clock, registry);
            cache = new Ops() {
                public int lookup(long key, long owner) {
                    return c.lookup(key, owner);
                }

                public void recordLookups(int hits, int misses) {
                    c.recordLookups(hits, misses);
                }

                public int put(long key, long owner, long end, long now) {
                    return c.putUncounted(key, owner, end, now);
                }

                public void recordPuts(int count, int intoEmpty, int evicting) {
                    c.recordPuts(count, intoEmpty, evicting);
                }
            };
        } else {
            PagedNearCache.Variant v = new PagedNearCache.Variant(
                    setsPerPage,
                    impl.equals("pages-expiring"),
                    !impl.equals("pages-recorded"),
                    impl.equals("pages-x2") ? 2 : 1);
            PagedNearCache c = new PagedNearCache(entries, clock, registry, v);
            cache = new Ops() {
                public int lookup(long key, long owner) {
                    return c.lookup(key, owner);
                }

                public void recordLookups(int hits, int misses) {
                    c.recordLookups(hits, misses);
                }

                public int put(long key, long owner, long end, long now) {
                    return c.putUncounted(key, owner, end, now);
                }

                public void recordPuts(int count, int intoEmpty, int evicting) {
                    c.recordPuts(count, intoEmpty, evicting);
                }
            };
        }
        // Twice the capacity of fresh ids, so every set is full and puts replace, as in a long cold stream.
        long total = 2 * entries;
        long now = clock.getAsLong();
        for (long i = 0; i < total; i += BATCH) {
            putBatch(1L << 62, i, now);
        }
        hitKeys = new long[HIT_KEYS];
        for (int i = 0; i < HIT_KEYS; i++) {
            hitKeys[i] = mix((1L << 62) + total - HIT_KEYS + i);
        }
        missKeys = new long[HIT_KEYS];
        for (int i = 0; i < HIT_KEYS; i++) {
            missKeys[i] = mix((3L << 61) + i);
        }
        int kept = 0;
        for (long k : hitKeys) {
            kept += cache.lookup(k, k) != NearCache.MISS ? 1 : 0;
        }
        System.out.printf("%n%s: of the last %d ids put, %.2f %% kept%n", impl, HIT_KEYS, 100.0 * kept / HIT_KEYS);
    }

    private int putBatch(long stream, long first, long now) {
        int intoEmpty = 0;
        int evicting = 0;
        long end = now + WINDOW;
        for (int j = 0; j < BATCH; j++) {
            long key = mix(stream + first + j);
            int filled = cache.put(key, key, end, now);
            intoEmpty += filled & 1;
            evicting += filled >>> 1;
        }
        cache.recordPuts(BATCH, intoEmpty, evicting);
        return intoEmpty + evicting;
    }

    @State(Scope.Thread)
    public static class Cursor {
        int next;
        long stream;
        long fresh;

        @Setup
        public void start(NearCacheGetPutBenchmark b) {
            int t = b.threads.getAndIncrement();
            next = t * (HIT_KEYS / 2);
            stream = (t + 1L) << 56;
        }
    }

    @Benchmark
    @OperationsPerInvocation(BATCH)
    public int getHit(Cursor c) {
        return lookups(hitKeys, c);
    }

    @Benchmark
    @OperationsPerInvocation(BATCH)
    public int getMiss(Cursor c) {
        return lookups(missKeys, c);
    }

    private int lookups(long[] keys, Cursor c) {
        int at = c.next;
        int hits = 0;
        for (int j = 0; j < BATCH; j++) {
            long k = keys[(at + j) & (HIT_KEYS - 1)];
            hits += cache.lookup(k, k) != NearCache.MISS ? 1 : 0;
        }
        c.next = (at + BATCH) & (HIT_KEYS - 1);
        cache.recordLookups(hits, BATCH - hits);
        return hits;
    }

    @Benchmark
    @OperationsPerInvocation(BATCH)
    public int putNew(Cursor c) {
        int r = putBatch(c.stream, c.fresh, clock.getAsLong());
        c.fresh += BATCH;
        return r;
    }
}
