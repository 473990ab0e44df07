package dev.dedup.agent.store;

/**
 * A table from {@code long} keys (any, 0 included) to {@code int} values of 0 or more, by open addressing with
 * linear probing, sized once for the number of keys it will hold and never grown: the index of a batch's keys
 * that the near-cache and the Redis tier build per call, where a {@code HashMap} would box every key.
 */
public final class LongIntTable {

    /** What {@link #get} and {@link #putIfAbsent} answer for a key the table does not hold. */
    public static final int ABSENT = -1;

    private final long[] keys;
    /** A slot's value plus one: 0 marks an empty slot, so that any key may be held. */
    private final int[] values;

    private final int mask;
    private int size;

    /** A table for at most {@code expected} keys, at most half full. */
    public LongIntTable(int expected) {
        int capacity = Integer.highestOneBit(Math.max(4, expected * 2 - 1)) << 1;
        keys = new long[capacity];
        values = new int[capacity];
        mask = capacity - 1;
    }

    /** The value held for {@code key}, or {@link #ABSENT}. */
    public int get(long key) {
        return values[slot(key)] - 1;
    }

    /**
     * Holds {@code value} (0 or more) for {@code key} unless the table holds one already; returns that one, or
     * {@link #ABSENT} when {@code value} is now held.
     */
    public int putIfAbsent(long key, int value) {
        if (value < 0 || value == Integer.MAX_VALUE) {
            throw new IllegalArgumentException("a table value is from 0 to 2^31 - 2: " + value);
        }
        int slot = slot(key);
        if (values[slot] != 0) {
            return values[slot] - 1;
        }
        if ((size + 1) * 2 > keys.length) {
            throw new IllegalStateException("the table was sized for " + keys.length / 2 + " keys");
        }
        size++;
        keys[slot] = key;
        values[slot] = value + 1;
        return ABSENT;
    }

    /** The slot that holds {@code key}, or the empty one where it would go. */
    private int slot(long key) {
        int slot = (int) ((key * 0x9E3779B97F4A7C15L) >>> 40) & mask;
        while (values[slot] != 0 && keys[slot] != key) {
            slot = (slot + 1) & mask;
        }
        return slot;
    }
}
