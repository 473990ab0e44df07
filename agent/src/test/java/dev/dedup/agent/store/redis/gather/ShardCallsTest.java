package dev.dedup.agent.store.redis.gather;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dedup.codec.Batch;
import dev.dedup.routing.JumpHash;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class ShardCallsTest {

    private static Batch batch(int items) {
        Batch.Builder b = Batch.builder(items);
        for (int i = 0; i < items; i++) {
            // Every id twice in a row: repeats must stay in order, in the same call.
            byte[] id = ("id-" + (i / 2)).getBytes(StandardCharsets.UTF_8);
            byte[] owner = ("o" + i).getBytes(StandardCharsets.UTF_8);
            b.add(id, 0, id.length, owner, 0, owner.length);
        }
        return b.build("ns");
    }

    /** A layout of 64 buckets a shard: an item is its key index (u16) and its batch index (u16). */
    private static ShardCalls.Packing packing(Batch batch, int shards) {
        return new ShardCalls.Packing() {
            @Override
            public long bucket(int i) {
                long route = batch.route(i);
                return ((long) JumpHash.shard(route >>> 32, shards) << 32) | (route & 63);
            }

            @Override
            public int shard(long bucket) {
                return (int) (bucket >>> 32);
            }

            @Override
            public byte[] key(int shard, long bucket) {
                return keyOf(bucket);
            }

            @Override
            public int itemBytes() {
                return 4;
            }

            @Override
            public void write(byte[] items, int at, int keyIndex, int i) {
                ByteBuffer.wrap(items, at, 4).putShort((short) keyIndex).putShort((short) i);
            }
        };
    }

    private static byte[] keyOf(long bucket) {
        return ("b" + bucket).getBytes(StandardCharsets.US_ASCII);
    }

    @Test
    void everyItemGoesToItsBucketsShard_once_inBatchOrder_withItsCallsDistinctKeys() {
        Batch batch = batch(5000);
        ShardCalls.Packing packing = packing(batch, 3);
        ShardCalls calls = ShardCalls.plan(batch.size(), packing, 3, 700);
        int[] seen = new int[batch.size()];
        for (ShardCalls.Call call : calls.calls()) {
            assertTrue(call.indexes().length <= 700, "at most maxItems a call");
            Set<String> keys = new HashSet<>();
            for (byte[] k : call.keys()) {
                assertTrue(keys.add(Arrays.toString(k)), "a key appears once in a call");
            }
            ByteBuffer items = ByteBuffer.wrap(call.items());
            int previous = -1;
            for (int j = 0; j < call.indexes().length; j++) {
                int i = call.indexes()[j];
                assertTrue(i > previous, "batch order within a call");
                previous = i;
                seen[i]++;
                long bucket = packing.bucket(i);
                assertEquals(call.shard(), packing.shard(bucket));
                int keyIndex = items.getShort(j * 4) & 0xffff;
                assertEquals(i, items.getShort(j * 4 + 2) & 0xffff, "item " + j + " is batch item " + i);
                assertArrayEquals(keyOf(bucket), call.keys()[keyIndex - 1], "item " + i + "'s key");
            }
        }
        int[] once = new int[batch.size()];
        Arrays.fill(once, 1);
        assertArrayEquals(once, seen, "every item in exactly one call");
    }

    @Test
    void mergedCalls_declareEachBucketOnce_andRenumberItemsByBucket() {
        Batch first = batch(300);
        Batch second = batch(500); // the same ids and more: shares buckets with the first
        ShardCalls.Call a = ShardCalls.plan(first.size(), packing(first, 1), 1, 4096)
                .calls()
                .get(0);
        ShardCalls.Call b = ShardCalls.plan(second.size(), packing(second, 1), 1, 4096)
                .calls()
                .get(0);
        ShardCalls.Call merged = CallGathering.merge(List.of(a, b), 4);
        assertEquals(merged.buckets().length, merged.keys().length, "one key a bucket");
        assertEquals(a.indexes().length + b.indexes().length, merged.indexes().length);
        Set<Long> distinct = new HashSet<>();
        for (long bucket : merged.buckets()) {
            assertTrue(distinct.add(bucket), "a bucket appears once in a merged call");
        }
        for (int j = 0; j < merged.buckets().length; j++) {
            assertArrayEquals(keyOf(merged.buckets()[j]), merged.keys()[j], "bucket " + j + "'s key");
        }
        ByteBuffer items = ByteBuffer.wrap(merged.items());
        for (int j = 0; j < merged.indexes().length; j++) {
            Batch batch = j < a.indexes().length ? first : second;
            int i = merged.indexes()[j];
            int bucketIndex = items.getShort(j * 4) & 0xffff;
            assertEquals(
                    packing(batch, 1).bucket(i),
                    merged.buckets()[bucketIndex - 1],
                    "merged item " + j + " names its bucket");
        }
    }
}
