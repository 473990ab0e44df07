package dev.dedup.agent.store.redis.layout;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Random;
import org.junit.jupiter.api.Test;

class TimeBucketsTest {

    /** {@code n} items of random fields, item {@code i} in key {@code 1 + i % keys}, owner tag 1. */
    private static byte[] items(int n, int keys, long seed) {
        Random random = new Random(seed);
        byte[] items = new byte[n * TimeBuckets.ITEM_BYTES];
        for (int i = 0; i < n; i++) {
            int at = i * TimeBuckets.ITEM_BYTES;
            int key = 1 + i % keys;
            items[at] = (byte) (key >>> 8);
            items[at + 1] = (byte) key;
            for (int j = 2; j < 9; j++) {
                items[at + j] = (byte) random.nextInt(256);
            }
            items[at + 12] = 1;
        }
        return items;
    }

    private static void copyItem(byte[] items, int from, int to) {
        System.arraycopy(
                items, from * TimeBuckets.ITEM_BYTES, items, to * TimeBuckets.ITEM_BYTES, TimeBuckets.ITEM_BYTES);
    }

    @Test
    void itemsOfDistinctFields_orOfOneFieldInDistinctBuckets_areDistinct() {
        assertTrue(TimeBuckets.FORM.distinct(new byte[0]));
        assertTrue(TimeBuckets.FORM.distinct(items(1, 1, 1)));
        assertTrue(TimeBuckets.FORM.distinct(items(4096, 300, 2)));
        byte[] items = items(1000, 300, 3);
        // The same field in another bucket is another id: items 0 and 1 are in keys 1 and 2.
        System.arraycopy(items, 2, items, TimeBuckets.ITEM_BYTES + 2, 7);
        assertTrue(TimeBuckets.FORM.distinct(items));
        // Keys whose low bytes are equal (1 and 257) are still told apart.
        byte[] wide = items(600, 600, 4);
        System.arraycopy(wide, 2, wide, 256 * TimeBuckets.ITEM_BYTES + 2, 7);
        assertTrue(TimeBuckets.FORM.distinct(wide));
    }

    @Test
    void aBucketAndFieldTwice_anywhereInTheCall_isARepeat_whateverTheOwners() {
        for (int[] pair : new int[][] {{0, 1}, {0, 999}, {500, 800}, {998, 999}}) {
            byte[] items = items(1000, 1, 5);
            copyItem(items, pair[0], pair[1]);
            items[pair[1] * TimeBuckets.ITEM_BYTES + 12] = 2; // another owner: still the same id
            assertFalse(TimeBuckets.FORM.distinct(items), "items " + pair[0] + " and " + pair[1]);
        }
        byte[] zeros = new byte[2 * TimeBuckets.ITEM_BYTES]; // key index 0 and a zero field mix to 0
        assertFalse(TimeBuckets.FORM.distinct(zeros));
    }
}
