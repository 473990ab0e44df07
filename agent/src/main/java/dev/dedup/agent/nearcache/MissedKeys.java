package dev.dedup.agent.nearcache;

/**
 * The keys of a batch that go to the store, each with the position of its first such item: an open-addressing
 * table of longs, built only for batches that mix hits and misses, so that a later repeat of a missed id
 * follows it to the store instead of being answered from the cache out of order.
 */
final class MissedKeys {

    private final long[] keys;
    private final int[] first;
    private final int mask;

    MissedKeys(int expected) {
        int capacity = Integer.highestOneBit(Math.max(4, expected * 2 - 1)) << 1;
        keys = new long[capacity];
        first = new int[capacity];
        mask = capacity - 1;
    }

    /** Records item {@code position} (key never 0); keeps the first position of a key seen twice. */
    void add(long key, int position) {
        int slot = slot(key);
        while (keys[slot] != 0) {
            if (keys[slot] == key) {
                return;
            }
            slot = (slot + 1) & mask;
        }
        keys[slot] = key;
        first[slot] = position;
    }

    /** The first position recorded for {@code key}, or -1. */
    int firstPosition(long key) {
        int slot = slot(key);
        while (keys[slot] != 0) {
            if (keys[slot] == key) {
                return first[slot];
            }
            slot = (slot + 1) & mask;
        }
        return -1;
    }

    private int slot(long key) {
        return (int) ((key * 0x9E3779B97F4A7C15L) >>> 40) & mask;
    }
}
