package dev.dedup.agent.nearcache;

import java.util.Arrays;
import java.util.concurrent.locks.StampedLock;

/**
 * One page of the near-cache: sets of {@value #WAYS} slots in one {@code long[]}, one stamped lock for the page. A
 * set is 128 bytes, its 8 whole keys then their 8 claims, a claim being the owner's 32-bit tag and the second the
 * claim ends in one long: a lookup of an id the set does not hold (every cold id) reads the keys' 64 bytes, a put
 * those and the claims' 64, where the slots' memory traffic is most of what the cache costs a cold id. {@link
 * #touch} lets a batch start loading its sets before it reads them.
 *
 * <p>The owner's tag is the low 32 bits of its fingerprint, the bits the Redis tier keeps the low 28 or 32 of: two
 * owners the cache takes for one, the store does too, so the cache never answers {@code retry} where the store
 * would answer {@code duplicate}. An end is kept in whole seconds, rounded down, so an entry never outlives its
 * claim.
 *
 * <p>A set keeps its entries in the order they were entered, empty slots last. A lookup reads optimistically and
 * validates, read again under the lock when a write intervened, so it never pairs a key with another claim's owner.
 * A put replaces, in the id's set, the same id (or one sharing its 56-bit field) in place, else takes an empty slot,
 * else drops the first ended claim or the oldest entry, moving the later ones down, and goes last. A page taken out
 * of the cache is {@linkplain #retire() retired}: emptied, it answers nothing and refuses puts, so a writer that
 * still held it puts into the page that replaced it.
 */
final class Page {

    /** Slots per set. */
    static final int WAYS = 8;

    /** Not in the page (or its claim ended). */
    static final int MISS = -1;
    /** The cached claim's owner is the asker. */
    static final int SAME_OWNER = 1;
    /** The cached claim belongs to another owner. */
    static final int OTHER_OWNER = 2;

    /** {@link #put}: took an empty slot. */
    static final int INTO_EMPTY = 1;
    /** {@link #put}: replaced a live claim of another id. */
    static final int EVICTED = 2;
    /** {@link #put}: this page is out of the cache; put into the one that replaced it. */
    static final int RETIRED = -1;

    /** A set: {@value #WAYS} keys, then as many claims. */
    private static final int LONGS_PER_SET = 2 * WAYS;

    /** A key of 0 marks an empty slot; {@link dev.dedup.fingerprint.Fingerprints} never makes key 0. */
    private static final long EMPTY = 0;

    private final long[] slots;
    private final StampedLock lock = new StampedLock();
    private int occupied;
    private boolean retired;

    Page(int sets) {
        this.slots = new long[sets * LONGS_PER_SET];
    }

    /** The owner's tag a claim keeps: the low 32 bits of its fingerprint. */
    static int ownerTag(long ownerFingerprint) {
        return (int) ownerFingerprint;
    }

    /** A claim as a set keeps it: the owner's tag, then its end second (32 bits, unsigned: up to 2106). */
    static long claim(long ownerFingerprint, long endSecond) {
        return ((long) ownerTag(ownerFingerprint) << 32) | (endSecond & 0xffff_ffffL);
    }

    private static long endOf(long claim) {
        return claim & 0xffff_ffffL;
    }

    /**
     * {@link #SAME_OWNER} or {@link #OTHER_OWNER} when {@code key}'s claim is in set {@code set} and ends after
     * second {@code nowSecond}, else {@link #MISS}.
     */
    int lookup(int set, long key, long owner, long nowSecond) {
        long stamp = lock.tryOptimisticRead();
        int answer = scan(set, key, owner, nowSecond);
        if (!lock.validate(stamp)) {
            stamp = lock.readLock();
            try {
                answer = scan(set, key, owner, nowSecond);
            } finally {
                lock.unlockRead(stamp);
            }
        }
        return answer;
    }

    private int scan(int set, long key, long owner, long nowSecond) {
        int base = set * LONGS_PER_SET;
        for (int at = base; at < base + WAYS; at++) {
            if (slots[at] == key) {
                long claim = slots[at + WAYS];
                if (endOf(claim) > nowSecond) {
                    return (int) (claim >>> 32) == ownerTag(owner) ? SAME_OWNER : OTHER_OWNER;
                }
                return MISS;
            }
        }
        return MISS;
    }

    /**
     * Reads set {@code set}'s keys, and its claims too when {@code whole}, without the lock (a word of each cache
     * line they may span), and returns what it read: nothing is decided from it. A batch touches the sets of all its
     * ids before it looks them up (or enters them), so that the CPU loads their cache lines side by side rather than
     * one lookup at a time.
     */
    long touch(int set, boolean whole) {
        int base = set * LONGS_PER_SET;
        long keys = slots[base] + slots[base + WAYS - 1];
        return whole ? keys + slots[base + WAYS] + slots[base + LONGS_PER_SET - 1] : keys;
    }

    /**
     * Enters a claim in set {@code set}, ending at second {@code endSecond}: {@link #INTO_EMPTY}, {@link #EVICTED},
     * 0 when it replaced the same id or an ended claim, or {@link #RETIRED}.
     */
    int put(int set, long key, long owner, long endSecond, long nowSecond) {
        long stamp = lock.writeLock();
        try {
            return putLocked(set, key, owner, endSecond, nowSecond);
        } finally {
            lock.unlockWrite(stamp);
        }
    }

    /**
     * Enters {@code count} claims, item {@code j} of them in set {@code sets[j]} ({@link #put}'s), under one hold
     * of the lock; adds each one's result to {@code results} at {@code j}. False when the page is retired: then
     * nothing was entered.
     */
    boolean putAll(
            int[] sets,
            long[] keys,
            long[] owners,
            long[] endSeconds,
            int from,
            int to,
            long nowSecond,
            int[] results) {
        long stamp = lock.writeLock();
        try {
            if (retired) {
                return false;
            }
            for (int j = from; j < to; j++) {
                results[j] = putLocked(sets[j], keys[j], owners[j], endSeconds[j], nowSecond);
            }
            return true;
        } finally {
            lock.unlockWrite(stamp);
        }
    }

    private int putLocked(int set, long key, long owner, long endSecond, long nowSecond) {
        if (retired) {
            return RETIRED;
        }
        long field = key >>> 8;
        int base = set * LONGS_PER_SET;
        int ended = -1;
        int at = base;
        for (; at < base + WAYS; at++) {
            long k = slots[at];
            if (k == EMPTY) {
                break; // the set's entries come first: the rest is empty too
            }
            if (k >>> 8 == field) {
                // the same id, or one sharing its field: replaced in place
                slots[at] = key;
                slots[at + WAYS] = claim(owner, endSecond);
                return 0;
            }
            if (ended < 0 && endOf(slots[at + WAYS]) <= nowSecond) {
                ended = at;
            }
        }
        int result;
        if (at < base + WAYS) {
            result = INTO_EMPTY;
            occupied++;
        } else {
            result = ended >= 0 ? 0 : EVICTED;
            int drop = ended >= 0 ? ended : base;
            at = base + WAYS - 1;
            System.arraycopy(slots, drop + 1, slots, drop, at - drop);
            System.arraycopy(slots, drop + WAYS + 1, slots, drop + WAYS, at - drop);
        }
        slots[at] = key;
        slots[at + WAYS] = claim(owner, endSecond);
        return result;
    }

    /** Drops, from set {@code set}, the id whose key's top 56 bits are {@code field}; returns the entries dropped. */
    int invalidate(int set, long field) {
        int base = set * LONGS_PER_SET;
        long stamp = lock.writeLock();
        try {
            // the entries kept move down over the dropped ones, in order
            int kept = base;
            int dropped = 0;
            for (int at = base; at < base + WAYS; at++) {
                long k = slots[at];
                if (k == EMPTY) {
                    break;
                }
                if (k >>> 8 == field) {
                    dropped++;
                } else {
                    slots[kept] = k;
                    slots[kept + WAYS] = slots[at + WAYS];
                    kept++;
                }
            }
            for (int at = kept; at < kept + dropped; at++) {
                slots[at] = EMPTY;
                slots[at + WAYS] = 0;
            }
            occupied -= dropped;
            return dropped;
        } finally {
            lock.unlockWrite(stamp);
        }
    }

    /** Empties the page in place; returns the entries it held. */
    int empty() {
        return empty(false);
    }

    /** Takes the page out of use: empties it for good; returns the entries it held. */
    int retire() {
        return empty(true);
    }

    private int empty(boolean retiring) {
        long stamp = lock.writeLock();
        try {
            retired |= retiring;
            Arrays.fill(slots, 0L);
            int held = occupied;
            occupied = 0;
            return held;
        } finally {
            lock.unlockWrite(stamp);
        }
    }
}
