package dev.dedup.agent.nearcache;

import java.util.Arrays;
import java.util.concurrent.locks.StampedLock;

/**
 * One page of the near-cache: sets of {@value #WAYS} slots in one {@code long[]}, then the sets' hands (the
 * next slot a full set replaces, 4 bits a set); one stamped lock for the page. A set is its 8 whole keys,
 * then their 8 owner fingerprints, then the 8 ends of their claims: a lookup of an id the set does not hold
 * (every cold id) reads the keys' 64 bytes only, where slots of three longs side by side spread the keys
 * over the set's three cache lines. {@link #touch} lets a batch start loading its sets before it reads them.
 *
 * <p>A lookup reads optimistically and validates, read again under the lock when a write intervened, so it
 * never pairs a key with another claim's owner. A put replaces, in the id's set, the same id (or one
 * sharing its 56-bit field) first, else an empty slot or an ended claim, else the set's oldest entry. A
 * page taken out of the cache is {@linkplain #retire() retired}: emptied, it answers nothing and refuses
 * puts, so a writer that still held it puts into the page that replaced it.
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

    /** A set: {@value #WAYS} keys, then as many owners, then as many ends. */
    private static final int LONGS_PER_SET = 3 * WAYS;

    private static final int OWNERS = WAYS;
    private static final int ENDS = 2 * WAYS;
    /** A key of 0 marks an empty slot; {@link dev.dedup.fingerprint.Fingerprints} never makes key 0. */
    private static final long EMPTY = 0;

    private final long[] slots;
    private final int handsAt;
    private final StampedLock lock = new StampedLock();
    private int occupied;
    private boolean retired;

    Page(int sets) {
        this.handsAt = sets * LONGS_PER_SET;
        this.slots = new long[handsAt + (sets + 15) / 16];
    }

    /** {@link #SAME_OWNER} or {@link #OTHER_OWNER} when {@code key}'s claim is in set {@code set} and live, else {@link #MISS}. */
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
        int base = set * LONGS_PER_SET;
        for (int at = base; at < base + WAYS; at++) {
            if (slots[at] == key) {
                if (slots[at + ENDS] > now) {
                    return slots[at + OWNERS] == owner ? SAME_OWNER : OTHER_OWNER;
                }
                return MISS;
            }
        }
        return MISS;
    }

    /**
     * Reads set {@code set}'s keys, and its owners and ends too when {@code whole}, without the lock, and
     * returns what it read: nothing is decided from it. A batch touches the sets of all its ids before it
     * looks them up (or enters them), so that the CPU loads their cache lines side by side rather than one
     * lookup at a time.
     */
    long touch(int set, boolean whole) {
        int base = set * LONGS_PER_SET;
        return whole ? slots[base] + slots[base + OWNERS] + slots[base + ENDS] : slots[base];
    }

    /**
     * Enters a claim in set {@code set}: {@link #INTO_EMPTY}, {@link #EVICTED}, 0 when it replaced the same
     * id or an ended claim, or {@link #RETIRED}.
     */
    int put(int set, long key, long owner, long end, long now) {
        long field = key >>> 8;
        int base = set * LONGS_PER_SET;
        long stamp = lock.writeLock();
        try {
            if (retired) {
                return RETIRED;
            }
            int result = 0;
            int target = -1;
            int ended = -1;
            for (int at = base; at < base + WAYS; at++) {
                long k = slots[at];
                if (k != EMPTY && k >>> 8 == field) {
                    target = at; // the same id, or one sharing its field: replace it
                    break;
                }
                if (ended < 0 && (k == EMPTY || slots[at + ENDS] <= now)) {
                    ended = at;
                }
            }
            if (target < 0) {
                target = ended >= 0 ? ended : base + nextHand(set);
                result = ended >= 0 ? 0 : EVICTED;
            }
            if (slots[target] == EMPTY) {
                result = INTO_EMPTY;
                occupied++;
            }
            slots[target] = key;
            slots[target + OWNERS] = owner;
            slots[target + ENDS] = end;
            return result;
        } finally {
            lock.unlockWrite(stamp);
        }
    }

    /** The slot a full set replaces now (its oldest), moving the set's hand on. */
    private int nextHand(int set) {
        int word = handsAt + (set >>> 4);
        int shift = (set & 15) * 4;
        long hands = slots[word];
        int hand = (int) (hands >>> shift) & (WAYS - 1);
        slots[word] = (hands & ~(0xFL << shift)) | ((long) ((hand + 1) & (WAYS - 1)) << shift);
        return hand;
    }

    /** Drops, from set {@code set}, the id whose key's top 56 bits are {@code field}; returns the entries dropped. */
    int invalidate(int set, long field) {
        int base = set * LONGS_PER_SET;
        long stamp = lock.writeLock();
        try {
            int dropped = 0;
            for (int at = base; at < base + WAYS; at++) {
                if (slots[at] != EMPTY && slots[at] >>> 8 == field) {
                    slots[at] = EMPTY;
                    slots[at + OWNERS] = 0;
                    slots[at + ENDS] = 0;
                    dropped++;
                }
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
