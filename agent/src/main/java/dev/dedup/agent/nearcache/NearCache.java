package dev.dedup.agent.nearcache;

import dev.dedup.agent.store.ReleaseListener;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.Arrays;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.StampedLock;
import java.util.function.LongSupplier;

/**
 * Ids this agent claimed recently, with the owner that holds the claim and when the claim ends, in a
 * fixed table of {@code maxEntries} slots on the heap: 8-way sets chosen by the top 56 bits of the id's
 * 64-bit key (namespace-salted; the part Redis keeps and publishes on release), a slot being three longs
 * (whole key, whole owner fingerprint, end of the claim). A lookup is hit only when the whole key matches;
 * two ids sharing those 56 bits replace each other, which forgets, never confuses. A full set replaces an
 * ended claim first, else its oldest entry (FIFO), so what was claimed last is what stays: the copies a
 * retried task or a producer resends come soon after the first. Entries can be dropped one by one (a
 * release) or all at once (the release channel was lost).
 *
 * <p>Why not a general-purpose cache: on a stream of new ids every claim is an insert, and an insert into
 * a 4 Mi-entry Caffeine cache cost 0.8 to 1.9 µs here (node, map entry, boxed key, eviction policy,
 * expiry wheel), two thirds of the agent's CPU per new id, against 0.01 to 0.1 µs for a slot in this
 * table; and an entry costs ~150 bytes of heap there against 24 here.
 *
 * <p>Thread-safe: a set is written under one of {@value #STRIPES} stamped locks and read optimistically
 * (validated against the lock's stamp, and read again under it when a write intervened), so a lookup never
 * sees a key from one claim with the owner of another, and lookups from several event loops never contend.
 * (With plain monitors, two event loops doing lookups inflated the locks and retries got ~35 % slower.)
 */
public final class NearCache implements ReleaseListener {

    /** Slots per set. */
    static final int WAYS = 8;

    static final int STRIPES = 1024;
    private static final int LONGS_PER_SLOT = 3;
    /** A key of 0 marks an empty slot; {@link dev.dedup.fingerprint.Fingerprints} never makes key 0. */
    private static final long EMPTY = 0;

    private final long[] slots;
    private final byte[] hands;
    private final int sets;
    private final StampedLock[] locks = new StampedLock[STRIPES];
    private final LongSupplier clockMillis;
    private final LongAdder hits = new LongAdder();
    private final LongAdder misses = new LongAdder();
    private final LongAdder puts = new LongAdder();
    private final LongAdder evictions = new LongAdder();
    private final LongAdder occupied = new LongAdder();

    public NearCache(long maxEntries, LongSupplier clockMillis, MeterRegistry registry) {
        if (maxEntries < WAYS || maxEntries > (long) Integer.MAX_VALUE / LONGS_PER_SLOT) {
            throw new IllegalArgumentException("near-cache entries: " + maxEntries + " is out of range; use " + WAYS
                    + " to " + Integer.MAX_VALUE / LONGS_PER_SLOT);
        }
        this.sets = (int) (maxEntries / WAYS);
        this.slots = new long[sets * WAYS * LONGS_PER_SLOT];
        this.hands = new byte[sets];
        this.clockMillis = clockMillis;
        for (int i = 0; i < STRIPES; i++) {
            locks[i] = new StampedLock();
        }
        // The names Micrometer's cache binders use, so that cache dashboards work unchanged.
        FunctionCounter.builder("cache.gets", hits, LongAdder::sum)
                .tag("cache", "near_cache")
                .tag("result", "hit")
                .description("near-cache lookups that found the id")
                .register(registry);
        FunctionCounter.builder("cache.gets", misses, LongAdder::sum)
                .tag("cache", "near_cache")
                .tag("result", "miss")
                .description("near-cache lookups that did not")
                .register(registry);
        FunctionCounter.builder("cache.puts", puts, LongAdder::sum)
                .tag("cache", "near_cache")
                .description("claims entered")
                .register(registry);
        FunctionCounter.builder("cache.evictions", evictions, LongAdder::sum)
                .tag("cache", "near_cache")
                .description("live claims replaced by newer ones in a full set")
                .register(registry);
        Gauge.builder("cache.size", occupied, LongAdder::sum)
                .tag("cache", "near_cache")
                .description("occupied slots")
                .register(registry);
    }

    /** Slots in all (the configured size rounded down to whole sets). */
    public long capacity() {
        return (long) sets * WAYS;
    }

    /** Not in the cache (or its claim ended): ask the store. */
    static final int MISS = -1;
    /** The cached claim's owner is the asker. */
    static final int SAME_OWNER = 1;
    /** The cached claim belongs to another owner. */
    static final int OTHER_OWNER = 2;

    /**
     * {@link #SAME_OWNER} or {@link #OTHER_OWNER} when the id's claim is cached and live, else {@link #MISS}.
     * Not counted: the caller reports a batch's lookups at once ({@link #recordLookups}), so that the
     * counters are touched once a batch rather than once an id.
     */
    int lookup(long key, long owner) {
        long now = clockMillis.getAsLong();
        int set = setOf(key >>> 8);
        StampedLock lock = locks[set & (STRIPES - 1)];
        long stamp = lock.tryOptimisticRead();
        int answer = scan(set, key, owner, now);
        if (!lock.validate(stamp)) {
            stamp = lock.readLock();
            try {
                answer = scan(set, key, owner, now);
            } finally {
                lock.unlockRead(stamp);
            }
        }
        return answer;
    }

    private int scan(int set, long key, long owner, long now) {
        int base = set * WAYS * LONGS_PER_SLOT;
        for (int w = 0; w < WAYS; w++) {
            int at = base + w * LONGS_PER_SLOT;
            if (slots[at] == key) {
                if (slots[at + 2] > now) {
                    return slots[at + 1] == owner ? SAME_OWNER : OTHER_OWNER;
                }
                return MISS;
            }
        }
        return MISS;
    }

    /** Counts {@code hitCount} hits and {@code missCount} misses of {@link #lookup}. */
    void recordLookups(int hitCount, int missCount) {
        if (hitCount > 0) {
            hits.add(hitCount);
        }
        if (missCount > 0) {
            misses.add(missCount);
        }
    }

    /**
     * Enters a claim without touching the counters; returns 1 when it took an empty slot, 2 when it
     * replaced a live claim of another id, else 0. {@link #recordPuts} reports a batch of them.
     */
    int putUncounted(long key, long owner, long expiresAtMillis, long now) {
        long field = key >>> 8;
        int set = setOf(field);
        int base = set * WAYS * LONGS_PER_SLOT;
        StampedLock lock = locks[set & (STRIPES - 1)];
        long stamp = lock.writeLock();
        try {
            int result = 0;
            int target = -1;
            int ended = -1;
            for (int w = 0; w < WAYS; w++) {
                int at = base + w * LONGS_PER_SLOT;
                long k = slots[at];
                if (k != EMPTY && k >>> 8 == field) {
                    target = at; // the same id, or one sharing its field: replace it
                    break;
                }
                if (ended < 0 && (k == EMPTY || slots[at + 2] <= now)) {
                    ended = at;
                }
            }
            if (target < 0) {
                if (ended >= 0) {
                    target = ended;
                } else {
                    int hand = hands[set];
                    hands[set] = (byte) ((hand + 1) & (WAYS - 1));
                    target = base + hand * LONGS_PER_SLOT;
                    result = 2;
                }
            }
            if (slots[target] == EMPTY) {
                result = 1;
            }
            slots[target] = key;
            slots[target + 1] = owner;
            slots[target + 2] = expiresAtMillis;
            return result;
        } finally {
            lock.unlockWrite(stamp);
        }
    }

    /** Counts {@code count} puts, of which {@code intoEmpty} took an empty slot and {@code evicting} replaced a live claim. */
    void recordPuts(int count, int intoEmpty, int evicting) {
        puts.add(count);
        if (intoEmpty > 0) {
            occupied.add(intoEmpty);
        }
        if (evicting > 0) {
            evictions.add(evicting);
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

    /** Releases may have gone unseen: drops everything. */
    @Override
    public void missedReleases() {
        invalidateAll();
    }

    /** Drops the id whose key's top 56 bits are {@code field} (as published on release). */
    void invalidateField(long field) {
        int set = setOf(field);
        int base = set * WAYS * LONGS_PER_SLOT;
        StampedLock lock = locks[set & (STRIPES - 1)];
        long stamp = lock.writeLock();
        try {
            for (int w = 0; w < WAYS; w++) {
                int at = base + w * LONGS_PER_SLOT;
                if (slots[at] != EMPTY && slots[at] >>> 8 == field) {
                    clear(at);
                }
            }
        } finally {
            lock.unlockWrite(stamp);
        }
    }

    /** Drops every entry, one lock stripe at a time. */
    void invalidateAll() {
        int setsPerPass = WAYS * LONGS_PER_SLOT;
        for (int stripe = 0; stripe < STRIPES; stripe++) {
            long stamp = locks[stripe].writeLock();
            try {
                for (int set = stripe; set < sets; set += STRIPES) {
                    int base = set * setsPerPass;
                    for (int w = 0; w < WAYS; w++) {
                        int at = base + w * LONGS_PER_SLOT;
                        if (slots[at] != EMPTY) {
                            clear(at);
                        }
                    }
                }
            } finally {
                locks[stripe].unlockWrite(stamp);
            }
        }
    }

    private void clear(int at) {
        Arrays.fill(slots, at, at + LONGS_PER_SLOT, 0L);
        occupied.decrement();
    }

    private int setOf(long field) {
        // The field's low bits are the key's middle bits: spread again so sets fill evenly.
        long h = field * 0x9E3779B97F4A7C15L;
        return (int) ((h >>> 32) * sets >>> 32);
    }

    /** Occupied slots (entries whose claim has ended count until replaced). */
    public long size() {
        return occupied.sum();
    }

    public double hitRatio() {
        long h = hits.sum();
        long total = h + misses.sum();
        return total == 0 ? 1.0 : (double) h / total;
    }

    public long hits() {
        return hits.sum();
    }

    public long misses() {
        return misses.sum();
    }

    public long evictions() {
        return evictions.sum();
    }
}
