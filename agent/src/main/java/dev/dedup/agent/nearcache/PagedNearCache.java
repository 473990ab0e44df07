package dev.dedup.agent.nearcache;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.Expiry;
import com.github.benmanes.caffeine.cache.Policy;
import com.github.benmanes.caffeine.cache.RemovalCause;
import dev.dedup.agent.store.ReleaseListener;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.cache.CaffeineStatsCounter;
import java.util.Map;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.LongSupplier;

/**
 * PROTOTYPE: the near-cache as a Caffeine cache of pages of claims (see {@link Page}), with the variants
 * being measured.
 */
public final class PagedNearCache implements ReleaseListener {

    /** What is being measured: sets per page, Caffeine expiry per page, reads recorded, index space. */
    record Variant(int setsPerPage, boolean expiring, boolean quietReads, int indexFactor) {
        static final Variant DEFAULT = new Variant(4096, false, true, 1);
    }

    static final boolean BATCH_EVICTIONS = !Boolean.getBoolean("nc.evictionPerId");
    static final int MISS = Page.MISS;
    static final int SAME_OWNER = Page.SAME_OWNER;
    static final int OTHER_OWNER = Page.OTHER_OWNER;

    private final Cache<Integer, Page> cache;
    private final Policy<Integer, Page> policy;
    private final ConcurrentMap<Integer, Page> pages;
    private final Policy.VarExpiration<Integer, Page> expiration;
    private final Integer[] indexes;
    private final int setsPerPage;
    private final int pageSlots;
    private final long capacity;
    private final boolean quietReads;
    private final LongSupplier clockMillis;
    private final CaffeineStatsCounter stats;
    private final LongAdder puts = new LongAdder();
    private final LongAdder occupied = new LongAdder();

    public PagedNearCache(long maxEntries, LongSupplier clockMillis, MeterRegistry registry) {
        this(maxEntries, clockMillis, registry, Variant.DEFAULT);
    }

    PagedNearCache(long maxEntries, LongSupplier clockMillis, MeterRegistry registry, Variant variant) {
        this.setsPerPage = variant.setsPerPage();
        this.pageSlots = setsPerPage * Page.WAYS;
        if (maxEntries < pageSlots || maxEntries / pageSlots * variant.indexFactor() > Integer.MAX_VALUE) {
            throw new IllegalArgumentException(
                    "near-cache entries: " + maxEntries + " is out of range; use at least " + pageSlots);
        }
        int residentPages = (int) (maxEntries / pageSlots);
        this.capacity = (long) residentPages * pageSlots;
        this.indexes = new Integer[residentPages * variant.indexFactor()];
        for (int i = 0; i < indexes.length; i++) {
            indexes[i] = i;
        }
        this.quietReads = variant.quietReads();
        this.clockMillis = clockMillis;
        this.stats = new CaffeineStatsCounter(registry, "near_cache");
        Caffeine<Integer, Page> builder = Caffeine.newBuilder()
                .maximumWeight(capacity)
                .weigher((Integer index, Page page) -> pageSlots)
                .executor(Runnable::run)
                .recordStats(() -> stats)
                .evictionListener((Integer index, Page page, RemovalCause cause) -> {
                    if (page != null) {
                        occupied.add(-page.retire());
                    }
                });
        if (variant.expiring()) {
            builder = builder.ticker(() -> TimeUnit.MILLISECONDS.toNanos(clockMillis.getAsLong()))
                    .expireAfter(new Expiry<Integer, Page>() {
                        @Override
                        public long expireAfterCreate(Integer index, Page page, long currentTime) {
                            return TimeUnit.MILLISECONDS.toNanos(page.keepUntil() - clockMillis.getAsLong());
                        }

                        @Override
                        public long expireAfterUpdate(
                                Integer index, Page page, long currentTime, long currentDuration) {
                            return currentDuration;
                        }

                        @Override
                        public long expireAfterRead(Integer index, Page page, long currentTime, long currentDuration) {
                            return currentDuration;
                        }
                    });
        }
        this.cache = builder.build();
        this.pages = cache.asMap();
        this.policy = cache.policy();
        this.expiration = variant.expiring() ? cache.policy().expireVariably().orElseThrow() : null;
        Gauge.builder("cache.size", occupied, LongAdder::sum)
                .tag("cache", "near_cache")
                .description("ids held")
                .register(registry);
        FunctionCounter.builder("cache.puts", puts, LongAdder::sum)
                .tag("cache", "near_cache")
                .description("claims entered")
                .register(registry);
    }

    public long capacity() {
        return capacity;
    }

    private int pageOf(long h) {
        return (int) ((h >>> 32) * indexes.length >>> 32);
    }

    private int setOf(long h) {
        return (int) h & (setsPerPage - 1);
    }

    private static long spread(long field) {
        return field * 0x9E3779B97F4A7C15L;
    }

    private Page page(int index) {
        Integer boxed = indexes[index];
        return quietReads ? policy.getIfPresentQuietly(boxed) : pages.get(boxed);
    }

    int lookup(long key, long owner) {
        long now = clockMillis.getAsLong();
        long h = spread(key >>> 8);
        Page page = page(pageOf(h));
        return page == null ? MISS : page.lookup(setOf(h), key, owner, now);
    }

    void recordLookups(int hitCount, int missCount) {
        if (hitCount > 0) {
            stats.recordHits(hitCount);
        }
        if (missCount > 0) {
            stats.recordMisses(missCount);
        }
    }

    int putUncounted(long key, long owner, long expiresAtMillis, long now) {
        long h = spread(key >>> 8);
        int index = pageOf(h);
        int set = setOf(h);
        while (true) {
            Page page = page(index);
            if (page == null) {
                Page fresh = new Page(setsPerPage, expiresAtMillis, now);
                page = pages.putIfAbsent(indexes[index], fresh);
                if (page == null) {
                    page = fresh;
                }
            }
            int result = page.put(set, key, owner, expiresAtMillis, now);
            if (result != Page.RETIRED) {
                if ((result & Page.KEEP_LONGER) != 0) {
                    if (expiration != null) {
                        follow(index, page, now);
                    }
                    result &= ~Page.KEEP_LONGER;
                }
                return result;
            }
        }
    }

    /** Keeps the page in Caffeine until {@link Page#keepUntil()}, also when writers race. */
    private void follow(int index, Page page, long now) {
        long until;
        do {
            until = page.keepUntil();
            expiration.setExpiresAfter(indexes[index], until - now, TimeUnit.MILLISECONDS);
        } while (page.keepUntil() != until);
    }

    void recordPuts(int count, int intoEmpty, int evicting) {
        puts.add(count);
        if (intoEmpty > 0) {
            occupied.add(intoEmpty);
        }
        if (BATCH_EVICTIONS) {
            if (evicting > 0) {
                stats.recordEviction(evicting, RemovalCause.SIZE);
            }
        } else {
            for (int i = 0; i < evicting; i++) {
                stats.recordEviction(1, RemovalCause.SIZE);
            }
        }
    }

    long clockMillis() {
        return clockMillis.getAsLong();
    }

    public void invalidate(long key) {
        invalidateField(key >>> 8);
    }

    @Override
    public void released(long field) {
        invalidateField(field);
    }

    @Override
    public void missedReleases() {
        invalidateAll();
    }

    void invalidateField(long field) {
        long h = spread(field);
        Page page = page(pageOf(h));
        if (page != null) {
            int dropped = page.invalidate(setOf(h), field);
            if (dropped > 0) {
                occupied.add(-dropped);
            }
        }
    }

    void invalidateAll() {
        for (Integer index : pages.keySet()) {
            pages.computeIfPresent(index, (i, page) -> {
                occupied.add(-page.retire());
                return null;
            });
        }
    }

    public long size() {
        return occupied.sum();
    }

    /** Pages in the cache. */
    long pages() {
        return cache.estimatedSize();
    }

    void cleanUp() {
        cache.cleanUp();
    }

    public double hitRatio() {
        var s = stats.snapshot();
        long total = s.hitCount() + s.missCount();
        return total == 0 ? 1.0 : (double) s.hitCount() / total;
    }

    public long hits() {
        return stats.snapshot().hitCount();
    }

    public long misses() {
        return stats.snapshot().missCount();
    }

    public long evictions() {
        return stats.snapshot().evictionCount();
    }

    Map<Integer, Page> asMap() {
        return pages;
    }
}
