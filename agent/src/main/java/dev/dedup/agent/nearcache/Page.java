package dev.dedup.agent.nearcache;

import java.util.Arrays;
import java.util.concurrent.locks.StampedLock;

/**
 * One page of the near-cache: {@code sets} sets of {@value #WAYS} slots, a slot being three longs (whole
 * key, whole owner fingerprint, end of the claim), under one stamped  A lookup reads optimistically
 * and validates (read again under the lock when a write intervened), so that it never pairs a key with
 * another claim's owner. A full set replaces an ended claim first, else its oldest entry. A page taken
 * out of the cache is {@linkplain #retire() retired}: it answers nothing more and refuses puts, so a
 * writer that still holds it puts into the page that replaced it.
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
    /** {@link #put}: the page was retired; put into the page that replaced it. */
    static final int RETIRED = -1;
    /** {@link #put}: flag that {@link #keepUntil()} moved. */
    static final int KEEP_LONGER = 4;

    private static final int LONGS_PER_SLOT = 3;
    /** A key of 0 marks an empty slot; {@link dev.dedup.fingerprint.Fingerprints} never makes key 0. */
    private static final long EMPTY = 0;

    /** The slots, then the hands: the next slot to replace in each full set, 4 bits a set. */
    private final long[] slots;

    private final int handsAt;
    private final StampedLock lock = new StampedLock();

    private int occupied;
    private boolean retired;
    /** Until when, in epoch millis, the cache should keep this page: past the latest end of its claims. */
    private volatile long keepUntil;

    Page(int sets, long firstEnd, long now) {
        this.handsAt = sets * WAYS * LONGS_PER_SLOT;
        this.slots = new long[handsAt + (sets + 15) / 16];
        this.keepUntil = keepUntil(firstEnd, now);
    }

    /** A claim's end plus an eighth of its remaining life, so the page's expiry moves only now and then. */
    private static long keepUntil(long end, long now) {
        return end + (end - now) / 8;
    }

    /** {@link #SAME_OWNER} or {@link #OTHER_OWNER} when {@code key}'s claim is here and live, else {@link #MISS}. */
    int lookup(int set, long key, long owner, long now) {
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

    /**
     * Enters a claim: 1 when it took an empty slot, 2 when it replaced a live claim of another id, 0 when
     * it replaced the same id or an ended claim, {@link #RETIRED} when this page is out of the cache.
     */
    int put(int set, long key, long owner, long end, long now) {
        long field = key >>> 8;
        int base = set * WAYS * LONGS_PER_SLOT;
        long stamp = lock.writeLock();
        try {
            if (retired) {
                return RETIRED;
            }
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
                    int word = handsAt + (set >>> 4);
                    int shift = (set & 15) * 4;
                    long hands = slots[word];
                    int hand = (int) (hands >>> shift) & (WAYS - 1);
                    slots[word] = (hands & ~(0xFL << shift)) | ((long) ((hand + 1) & (WAYS - 1)) << shift);
                    target = base + hand * LONGS_PER_SLOT;
                    result = 2;
                }
            }
            if (slots[target] == EMPTY) {
                result = 1;
                occupied++;
            }
            slots[target] = key;
            slots[target + 1] = owner;
            slots[target + 2] = end;
            if (end > keepUntil) {
                keepUntil = keepUntil(end, now);
                result |= KEEP_LONGER;
            }
            return result;
        } finally {
            lock.unlockWrite(stamp);
        }
    }

    /** Drops the id whose key's top 56 bits are {@code field}; returns the entries dropped (0 or 1). */
    int invalidate(int set, long field) {
        int base = set * WAYS * LONGS_PER_SLOT;
        long stamp = lock.writeLock();
        try {
            int dropped = 0;
            for (int w = 0; w < WAYS; w++) {
                int at = base + w * LONGS_PER_SLOT;
                if (slots[at] != EMPTY && slots[at] >>> 8 == field) {
                    Arrays.fill(slots, at, at + LONGS_PER_SLOT, 0L);
                    dropped++;
                }
            }
            occupied -= dropped;
            return dropped;
        } finally {
            lock.unlockWrite(stamp);
        }
    }

    /** Takes the page out of use: empties it and returns the entries it held. */
    int retire() {
        long stamp = lock.writeLock();
        try {
            retired = true;
            Arrays.fill(slots, 0L);
            int held = occupied;
            occupied = 0;
            return held;
        } finally {
            lock.unlockWrite(stamp);
        }
    }

    long keepUntil() {
        return keepUntil;
    }
}
