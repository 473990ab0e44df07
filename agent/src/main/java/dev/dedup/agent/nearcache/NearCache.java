package dev.dedup.agent.nearcache;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.Policy;
import com.github.benmanes.caffeine.cache.RemovalCause;
import com.github.benmanes.caffeine.cache.stats.CacheStats;
import dev.dedup.agent.store.ReleaseListener;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.cache.CaffeineStatsCounter;
import java.util.Arrays;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.LongSupplier;

/**
 * Ids this agent claimed recently, with the owner that holds the claim and when the claim ends: a Caffeine
 * cache of {@linkplain Page pages}, a page being up to {@value #SETS_PER_PAGE} sets of {@value Page#WAYS} slots in
 * one {@code long[]}, a slot 16 bytes (whole key; the owner's tag and the claim's end second). The top 56
 * bits of the id's 64-bit key (namespace-salted; the part Redis keeps and publishes on release) choose the
 * page and the set in it. A lookup is a hit only when the whole key matches and the claim has not ended;
 * two ids sharing those 56 bits replace each other, which forgets, never confuses. A full set replaces an
 * ended claim first, else the one ending soonest, so what was claimed last is what stays: the copies a retried
 * task or a producer resends come soon after the first. Entries can be dropped one by one (a release) or
 * all at once (the release channel was lost).
 *
 * <p>Why pages: Caffeine's cost is per entry (a node, a map entry, a key, its policy's bookkeeping), about
 * 150 bytes and a microsecond per insert when every id was an entry. Per page of 16,384 ids it is a few
 * hundred bytes a page and nothing per insert, since a page is made once, on first use; the ids cost 16 bytes
 * each. Caffeine holds the pages, bounded by weight at the configured number of ids (a page weighs its
 * slots), and counts through Micrometer's {@link CaffeineStatsCounter}. There are exactly as many page
 * indexes as the bound holds pages, so Caffeine never has to choose a page to drop: replacement happens
 * inside a set, by age, which keeps the newest claims, where dropping whole pages by frequency would lose
 * thousands of recent claims at once. For the same reason lookups read pages quietly ({@link
 * Policy#getIfPresentQuietly}) rather than feed a policy that never evicts. Measured in
 * docs/performance.md#the-near-cache ({@code NearCachePolicies} in the benchmarks): with four page indexes per
 * page that fits, so that Caffeine chooses the pages, 6 % of copies 1,000 ids behind their claim are still
 * cached against 100 %; an entry per id costs 147 bytes, and TinyLFU turns away fresh ids once full. Smaller
 * pages cost more per id (their Caffeine nodes and locks fall out of the CPU caches), and so do reads that
 * feed the policy.
 *
 * <p>Thread-safe: each page is written under its stamped lock and read optimistically (see {@link Page}),
 * so lookups from several event loops never contend. The lost-channel clear empties each page in place under
 * its lock, so no lookup answers from what it held, and a put that comes after it is kept.
 */
public final class NearCache implements ReleaseListener {

    /** Slots per set. */
    static final int WAYS = Page.WAYS;
    /**
     * Sets in a full page: 16,384 ids, a 256 KiB array, under G1's smallest threshold for humongous objects
     * (half a 1 MiB region), which would round every page up to a region of its own. A smaller cache is one
     * page.
     */
    static final int SETS_PER_PAGE = 2048;

    /** Not in the cache (or its claim ended): ask the store. */
    static final int MISS = Page.MISS;
    /** The cached claim's owner is the asker. */
    static final int SAME_OWNER = Page.SAME_OWNER;
    /** The cached claim belongs to another owner. */
    static final int OTHER_OWNER = Page.OTHER_OWNER;

    private final Cache<Integer, Page> cache;
    private final ConcurrentMap<Integer, Page> pages;
    private final Policy<Integer, Page> policy;
    /** The page indexes, boxed once: Caffeine's keys, and what lookups pass without allocating. */
    private final Integer[] indexes;

    private final int setsPerPage;
    private final long capacity;
    private final LongSupplier clockMillis;
    private final CaffeineStatsCounter stats;
    private final LongAdder puts = new LongAdder();
    private final LongAdder occupied = new LongAdder();
    /** Whether the release feed is whole: every release made anywhere is heard. */
    private volatile boolean listening;
    /**
     * Releases heard or made here and changes of the feed, counted before each takes effect: a claim caches what the
     * store answered only when none came while it was there ({@link #changes()}).
     */
    private final AtomicLong changes = new AtomicLong();

    public NearCache(long maxEntries, LongSupplier clockMillis, MeterRegistry registry) {
        if (maxEntries < WAYS || maxEntries > (long) Integer.MAX_VALUE * WAYS) {
            throw new IllegalArgumentException("near-cache entries: " + maxEntries + " is out of range; use " + WAYS
                    + " to " + (long) Integer.MAX_VALUE * WAYS);
        }
        long sets = maxEntries / WAYS;
        int pageCount = (int) ((sets + SETS_PER_PAGE - 1) / SETS_PER_PAGE);
        this.setsPerPage = (int) (sets / pageCount);
        int pageSlots = setsPerPage * WAYS;
        this.capacity = (long) pageCount * pageSlots;
        this.indexes = new Integer[pageCount];
        for (int i = 0; i < pageCount; i++) {
            indexes[i] = i;
        }
        this.clockMillis = clockMillis;
        this.stats = new CaffeineStatsCounter(registry, "near_cache");
        this.cache = Caffeine.newBuilder()
                .maximumWeight(capacity)
                .weigher((Integer index, Page page) -> pageSlots)
                .initialCapacity(pageCount)
                .executor(Runnable::run)
                .recordStats(() -> stats)
                .evictionListener((Integer index, Page page, RemovalCause cause) -> {
                    if (page != null) {
                        occupied.add(-page.retire());
                    }
                })
                .build();
        this.pages = cache.asMap();
        this.policy = cache.policy();
        Gauge.builder("cache.size", occupied, LongAdder::sum)
                .tag("cache", "near_cache")
                .description("ids held (claims that ended count until replaced)")
                .register(registry);
        FunctionCounter.builder("cache.puts", puts, LongAdder::sum)
                .tag("cache", "near_cache")
                .description("claims entered")
                .register(registry);
    }

    /** Slots in all: the configured size rounded down to whole sets, spread evenly over the pages. */
    public long capacity() {
        return capacity;
    }

    /**
     * {@link #SAME_OWNER} or {@link #OTHER_OWNER} when the id's claim is cached and live, else {@link #MISS}.
     * Not counted: the caller reports a batch's lookups at once ({@link #recordLookups}), so that the
     * counters are touched once a batch rather than once an id.
     */
    int lookup(long key, long owner) {
        long nowSecond = Math.floorDiv(clockMillis.getAsLong(), 1000L);
        long h = spread(key >>> 8);
        Page page = policy.getIfPresentQuietly(indexes[pageOf(h)]);
        return page == null ? MISS : page.lookup(setOf(h), key, owner, nowSecond);
    }

    /** A view for one batch's lookups or puts, asking Caffeine for each page once. */
    BatchPages batchPages() {
        return new BatchPages();
    }

    /**
     * The pages one batch's lookups or puts have reached, so that Caffeine is asked once per page and batch
     * rather than once per id (a batch of 10,000 ids meets each of the 64 pages of the default size about 150
     * times). Answers exactly as {@link NearCache#lookup} does: a page emptied meanwhile (the lost-channel clear)
     * answers nothing. For one thread and one batch. The clock is read once, when the view is made: a batch's
     * lookups take its time then (the time its claims go to the store with), not a read of the clock each (about
     * 30 ns on a virtual machine's clock source, as much as the rest of a lookup).
     */
    final class BatchPages {

        private static final int MOST = 1024;

        private final Page[] seen;
        /** The page index of each entry of {@code seen}, plus one (0: none). */
        private final int[] seenIndex;

        private final int mask;
        private final long nowSecond = Math.floorDiv(clockMillis.getAsLong(), 1000L);

        private BatchPages() {
            int length = Integer.highestOneBit(Math.min(indexes.length, MOST) * 2 - 1);
            seen = new Page[length];
            seenIndex = new int[length];
            mask = length - 1;
        }

        /** As {@link NearCache#lookup}. */
        int lookup(long key, long owner) {
            long h = spread(key >>> 8);
            Page page = page(pageOf(h));
            return page == null ? MISS : page.lookup(setOf(h), key, owner, nowSecond);
        }

        /**
         * Reads the set of the id whose key is {@code key} (see {@link Page#touch}); returns what it read, for
         * {@link NearCache#keep}. Touching every id of a batch first lets the CPU load their sets side by side,
         * where lookups one after the other wait for each in turn.
         */
        long touch(long key) {
            long h = spread(key >>> 8);
            Page page = page(pageOf(h));
            return page == null ? 0 : page.touch(setOf(h), false);
        }

        private Page page(int index) {
            int at = index & mask;
            if (seenIndex[at] == index + 1) {
                return seen[at];
            }
            Page page = policy.getIfPresentQuietly(indexes[index]);
            if (page != null) {
                seen[at] = page;
                seenIndex[at] = index + 1;
            }
            return page;
        }
    }

    /**
     * Keeps what a batch's {@link BatchPages#touch}es read, so that the compiler cannot drop the reads as
     * unused. Written once a batch; never read.
     */
    @SuppressWarnings("unused")
    private static long touched;

    static void keep(long read) {
        touched = read;
    }

    /** Counts {@code hitCount} hits and {@code missCount} misses of {@link #lookup}. */
    void recordLookups(int hitCount, int missCount) {
        if (hitCount > 0) {
            stats.recordHits(hitCount);
        }
        if (missCount > 0) {
            stats.recordMisses(missCount);
        }
    }

    /**
     * Enters a claim without touching the counters; returns 1 when it took an empty slot, 2 when it
     * replaced a live claim of another id, else 0. {@link #recordPuts} reports a batch of them.
     */
    int putUncounted(long key, long owner, long expiresAtMillis, long nowMillis) {
        long h = spread(key >>> 8);
        int set = setOf(h);
        long endSecond = Math.floorDiv(expiresAtMillis, 1000L);
        long nowSecond = Math.floorDiv(nowMillis, 1000L);
        while (true) {
            int result = pageToFill(pageOf(h)).put(set, key, owner, endSecond, nowSecond);
            if (result != Page.RETIRED) {
                return result;
            }
        }
    }

    /** Page {@code index}, made if the cache has none. */
    private Page pageToFill(int index) {
        Page page = policy.getIfPresentQuietly(indexes[index]);
        if (page == null) {
            Page fresh = new Page(setsPerPage);
            Page raced = pages.putIfAbsent(indexes[index], fresh);
            page = raced == null ? fresh : raced;
        }
        return page;
    }

    /**
     * Enters {@code count} claims, claim {@code j} for key {@code keys[j]} held by {@code owners[j]} until epoch
     * millis {@code ends[j]}, and counts them ({@link #recordPuts}). They are taken page by page, each page's lock
     * once, after their sets were touched side by side.
     */
    void putAll(long[] keys, long[] owners, long[] ends, int count, long nowMillis) {
        if (count == 0) {
            return;
        }
        int pageCount = indexes.length;
        int[] pageOf = new int[count];
        int[] setOf = new int[count];
        int[] starts = new int[pageCount + 1];
        for (int j = 0; j < count; j++) {
            long h = spread(keys[j] >>> 8);
            int p = pageOf(h);
            pageOf[j] = p;
            setOf[j] = setOf(h);
            starts[p + 1]++;
        }
        for (int p = 0; p < pageCount; p++) {
            starts[p + 1] += starts[p];
        }
        // grouped by page (a counting sort), with each claim's set, its end in seconds
        int[] sets = new int[count];
        long[] k = new long[count];
        long[] o = new long[count];
        long[] e = new long[count];
        int[] next = Arrays.copyOf(starts, pageCount);
        for (int j = 0; j < count; j++) {
            int at = next[pageOf[j]]++;
            k[at] = keys[j];
            o[at] = owners[j];
            e[at] = Math.floorDiv(ends[j], 1000L);
            sets[at] = setOf[j];
        }
        long nowSecond = Math.floorDiv(nowMillis, 1000L);
        long touchedSum = 0;
        for (int p = 0; p < pageCount; p++) {
            if (starts[p] < starts[p + 1]) {
                Page page = pageToFill(p);
                for (int j = starts[p]; j < starts[p + 1]; j++) {
                    touchedSum += page.touch(sets[j], true);
                }
            }
        }
        keep(touchedSum);
        int[] results = new int[count];
        for (int p = 0; p < pageCount; p++) {
            if (starts[p] < starts[p + 1]) {
                while (!pageToFill(p).putAll(sets, k, o, e, starts[p], starts[p + 1], nowSecond, results)) {
                    // retired meanwhile: into the page that replaced it
                }
            }
        }
        int intoEmpty = 0;
        int evicting = 0;
        for (int j = 0; j < count; j++) {
            intoEmpty += results[j] & 1;
            evicting += results[j] >>> 1;
        }
        recordPuts(count, intoEmpty, evicting);
    }

    /**
     * Counts {@code count} puts, of which {@code intoEmpty} took an empty slot and {@code evicting} replaced
     * a live claim: one eviction of weight {@code evicting}, cause {@code SIZE}.
     */
    void recordPuts(int count, int intoEmpty, int evicting) {
        puts.add(count);
        if (intoEmpty > 0) {
            occupied.add(intoEmpty);
        }
        if (evicting > 0) {
            stats.recordEviction(evicting, RemovalCause.SIZE);
        }
    }

    long clockMillis() {
        return clockMillis.getAsLong();
    }

    /** Drops the id whose key is {@code key}. */
    public void invalidate(long key) {
        invalidateField(key >>> 8);
    }

    /** A release published by any agent: drops the id whose key's top 56 bits are {@code field}. */
    @Override
    public void released(long field) {
        invalidateField(field);
    }

    /**
     * The release feed changed: everything is dropped, and the cache may answer only while {@code listening}. Off
     * first and on last, so that no claim is answered from entries the clear has not reached yet.
     */
    @Override
    public void listening(boolean listening) {
        changes.incrementAndGet();
        if (!listening) {
            this.listening = false;
        }
        invalidateAll();
        this.listening = listening;
    }

    /**
     * Whether the cache may answer and be filled now: while every release is heard ({@link #listening(boolean)}).
     * False until the feed says it is whole.
     */
    public boolean listening() {
        return listening;
    }

    /**
     * How many releases and changes of the feed have come so far. A claim reads it before it goes to the store and
     * again after it cached the answers: a release of one of its ids may have been heard (and found nothing to drop)
     * before the answers were cached, so when the count moved the claim drops what it cached.
     */
    public long changes() {
        return changes.get();
    }

    /** Drops the id whose key's top 56 bits are {@code field} (as published on release). */
    void invalidateField(long field) {
        changes.incrementAndGet(); // before the drop: a claim that cached meanwhile sees it and drops its own
        forgetField(field);
    }

    /**
     * Drops what a claim cached, without counting a change: its own answers, dropped because a change came, are
     * not a release that other claims in flight must hear of.
     */
    void forget(long key) {
        forgetField(key >>> 8);
    }

    private void forgetField(long field) {
        long h = spread(field);
        Page page = policy.getIfPresentQuietly(indexes[pageOf(h)]);
        if (page != null) {
            int dropped = page.invalidate(setOf(h), field);
            if (dropped > 0) {
                occupied.add(-dropped);
            }
        }
    }

    /**
     * Empties every page in place, each under its lock. Not dropped and made again: the pages of a full cache
     * (16 MiB by default) would be allocated anew while the old ones wait for a full collection, and the heap
     * would grow by as much at every lost channel.
     */
    void invalidateAll() {
        for (Page page : pages.values()) {
            occupied.add(-page.empty());
        }
    }

    /** The field's low bits are the key's middle bits: spread again so pages and sets fill evenly. */
    private static long spread(long field) {
        return field * 0x9E3779B97F4A7C15L;
    }

    private int pageOf(long h) {
        return (int) ((h >>> 32) * indexes.length >>> 32);
    }

    private int setOf(long h) {
        return (int) ((h & 0xFFFF_FFFFL) * setsPerPage >>> 32);
    }

    /** Occupied slots (entries whose claim has ended count until replaced). */
    public long size() {
        return occupied.sum();
    }

    /** Pages made so far (a page is made when a claim first falls into it). */
    long pages() {
        return cache.estimatedSize();
    }

    public double hitRatio() {
        CacheStats s = stats.snapshot();
        long total = s.hitCount() + s.missCount();
        return total == 0 ? 1.0 : (double) s.hitCount() / total;
    }

    public long hits() {
        return stats.snapshot().hitCount();
    }

    public long misses() {
        return stats.snapshot().missCount();
    }

    /** Live claims replaced by newer ones in a full set. */
    public long evictions() {
        return stats.snapshot().evictionWeight();
    }
}
