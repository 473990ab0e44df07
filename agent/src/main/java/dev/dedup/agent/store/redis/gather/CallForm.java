package dev.dedup.agent.store.redis.gather;

import java.util.Arrays;

/**
 * Where a script's arguments hold what its items make: the items themselves ({@code itemBytes} each, a u16 key index
 * first and the id's 7-byte field at {@code fieldAt}), the buckets' key arguments, and whether no bucket and field
 * come twice among the items. Two calls of the script whose other arguments are equal may go out as one.
 */
public record CallForm(int itemBytes, int fieldAt, int itemsAt, int keyArgsAt, int distinctAt) {

    private static final byte[] ONE = {'1'};
    private static final byte[] ZERO = {'0'};

    /**
     * {@code args} with {@code call}'s items, key arguments and {@code '1'} or {@code '0'} for whether they are
     * {@linkplain #distinct distinct} at their places; the other arguments as they are.
     */
    public byte[][] fill(byte[][] args, CallPlan.Call call) {
        args[itemsAt] = call.items();
        args[keyArgsAt] = call.keyArgs();
        args[distinctAt] = distinct(call.items()) ? ONE : ZERO;
        return args;
    }

    /** Whether {@code a} and {@code b} are equal but for what the items make. */
    boolean sameOtherArgs(byte[][] a, byte[][] b) {
        if (a.length != b.length) {
            return false;
        }
        for (int i = 0; i < a.length; i++) {
            if (i != itemsAt && i != keyArgsAt && i != distinctAt && !Arrays.equals(a[i], b[i])) {
                return false;
            }
        }
        return true;
    }

    /**
     * Whether no bucket and field come twice among {@code items}: a script then needs not remember the claims it
     * writes, which is a Lua table entry per new id. Two items whose key index and field differ but mix to the same
     * long are taken for a repeat, which only costs that call the table.
     */
    public boolean distinct(byte[] items) {
        int n = items.length / itemBytes;
        if (n < 2) {
            return true;
        }
        long[] set = new long[Integer.highestOneBit(n * 2 - 1) << 1];
        int mask = set.length - 1;
        boolean zeroSeen = false;
        for (int at = 0; at < items.length; at += itemBytes) {
            long v = ((items[at] & 0xffL) << 8) | (items[at + 1] & 0xffL);
            for (int j = 0; j < 7; j++) {
                v = (v << 8) | (items[at + fieldAt + j] & 0xff); // 72 bits: the key index's high byte shifted out
            }
            v ^= (long) (items[at] & 0xff) * 0x9E3779B97F4A7C15L; // and mixed back in
            if (v == 0) {
                if (zeroSeen) {
                    return false;
                }
                zeroSeen = true;
                continue;
            }
            int slot = (int) ((v * 0x9E3779B97F4A7C15L) >>> 40) & mask;
            while (set[slot] != 0) {
                if (set[slot] == v) {
                    return false;
                }
                slot = (slot + 1) & mask;
            }
            set[slot] = v;
        }
        return true;
    }
}
