package dev.dedup.agent.store.redis.gather;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dedup.agent.store.StoreUnavailableException;
import dev.dedup.agent.store.redis.access.RedisPort;
import dev.dedup.agent.testing.FakeRedisPort;
import dev.dedup.codec.Batch;
import dev.dedup.routing.JumpHash;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.IntToLongFunction;
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
        return packing(i -> {
            long route = batch.route(i);
            return ((long) JumpHash.shard(route >>> 32, shards) << 32) | (route & 63);
        });
    }

    /**
     * A packing whose item {@code i} is in bucket {@code bucketOf(i)}, whose high half is its shard; an item is its
     * key index (u16) and its batch index (u16).
     */
    private static ShardCalls.Packing packing(IntToLongFunction bucketOf) {
        return new ShardCalls.Packing() {
            @Override
            public long bucket(int i) {
                return bucketOf.applyAsLong(i);
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
    /** A packing of items {@code 0..buckets.length-1}: item {@code i} in bucket {@code buckets[i]}, whose high half is its shard. */
    private static ShardCalls.Packing fixed(long... buckets) {
        return packing(i -> buckets[i]);
    }

    private static long bucket(int shard, int n) {
        return ((long) shard << 32) | n;
    }

    private static List<Integer> keyIndexes(ShardCalls.Call call) {
        List<Integer> out = new ArrayList<>();
        ByteBuffer items = ByteBuffer.wrap(call.items());
        while (items.hasRemaining()) {
            out.add(items.getShort() & 0xffff);
            items.getShort();
        }
        return out;
    }

    @Test
    void anEmptyBatch_makesNoCall_andIsAnsweredAtOnce() {
        ShardCalls calls = ShardCalls.plan(0, fixed(), 3, 10);
        assertEquals(List.of(), calls.calls());
        assertArrayEquals(
                new byte[0],
                calls.run(null, c -> {
                            throw new AssertionError("no call");
                        })
                        .toCompletableFuture()
                        .join());
    }

    @Test
    void aShardsItems_fillCallsOfMaxItems_inBatchOrder_andAShardWithoutItemsHasNoCall() {
        // Shard 2 of 3 gets 7 items with at most 3 a call; shard 0 gets one; shard 1 none.
        long[] buckets = new long[8];
        for (int i = 0; i < 7; i++) {
            buckets[i] = bucket(2, i % 2);
        }
        buckets[7] = bucket(0, 9);
        ShardCalls calls = ShardCalls.plan(8, fixed(buckets), 3, 3);
        List<String> shape = calls.calls().stream()
                .map(c -> c.shard() + ":" + Arrays.toString(c.indexes()))
                .toList();
        assertEquals(List.of("0:[7]", "2:[0, 1, 2]", "2:[3, 4, 5]", "2:[6]"), shape);
        ShardCalls.Call second = calls.calls().get(2);
        assertEquals(List.of(1, 2, 1), keyIndexes(second), "items of one bucket share its key index");
        assertArrayEquals(new long[] {bucket(2, 1), bucket(2, 0)}, second.buckets(), "buckets in order of first use");
        assertArrayEquals(keyOf(bucket(2, 1)), second.keys()[0]);
        assertEquals(
                1,
                ShardCalls.plan(3, fixed(bucket(0, 1), bucket(0, 2), bucket(0, 3)), 1, 3)
                        .size(),
                "exactly full");
    }

    @Test
    void answersReturnToTheirItems_andACallAnsweringAnotherCount_failsTheBatchNamingItsShard() {
        ShardCalls calls = ShardCalls.plan(4, fixed(bucket(1, 0), bucket(0, 0), bucket(1, 0), bucket(0, 5)), 2, 10);
        byte[] answers = calls.run(null, call -> {
                    byte[] got = new byte[call.indexes().length];
                    for (int j = 0; j < got.length; j++) {
                        got[j] = (byte) (10 * call.shard() + call.indexes()[j]);
                    }
                    return CompletableFuture.completedFuture(got);
                })
                .toCompletableFuture()
                .join();
        assertArrayEquals(new byte[] {10, 1, 12, 3}, answers);

        RedisPort named = new FakeRedisPort(2);
        CompletionException e = assertThrows(
                CompletionException.class,
                () -> calls.run(named, call -> CompletableFuture.completedFuture(new byte[call.shard() == 1 ? 1 : 2]))
                        .toCompletableFuture()
                        .join());
        assertTrue(e.getCause() instanceof StoreUnavailableException, e.toString());
        assertEquals(
                "redis shard shard-1 answered 1 verdicts for 2 items",
                e.getCause().getMessage());
    }

    /** Items of {@code itemBytes = 20}: u16 key index, u16 other, then the 7-byte field at 4. */
    private static byte[] items(int[][] keyIndexAndField) {
        ByteBuffer b = ByteBuffer.allocate(keyIndexAndField.length * 20);
        for (int[] item : keyIndexAndField) {
            b.putShort((short) item[0]).putShort((short) 0x7777);
            long field = item[1];
            for (int i = 0; i < 7; i++) {
                b.put((byte) (field >>> (48 - 8 * i)));
            }
            b.position(b.position() + 9);
        }
        return b.array();
    }

    @Test
    void itemsAreDistinct_unlessABucketAndFieldComeTwice() {
        assertTrue(ShardCalls.distinct(new byte[0], 20, 4), "no item");
        assertTrue(ShardCalls.distinct(items(new int[][] {{1, 5}}), 20, 4), "one item");
        assertTrue(ShardCalls.distinct(items(new int[][] {{1, 5}, {2, 5}, {1, 6}}), 20, 4), "a field in two buckets");
        assertFalse(ShardCalls.distinct(items(new int[][] {{1, 5}, {2, 6}, {1, 5}}), 20, 4), "a repeat");
        assertFalse(
                ShardCalls.distinct(items(new int[][] {{256, 5}, {2, 7}, {256, 5}}), 20, 4), "a repeat past key 255");
        assertTrue(ShardCalls.distinct(items(new int[][] {{0, 0}, {1, 0}}), 20, 4), "a zero item once");
        assertFalse(ShardCalls.distinct(items(new int[][] {{0, 0}, {1, 0}, {0, 0}}), 20, 4), "a zero item twice");
        int[][] many = new int[5000][];
        for (int i = 0; i < many.length; i++) {
            many[i] = new int[] {1 + i % 300, i};
        }
        assertTrue(ShardCalls.distinct(items(many), 20, 4), "5,000 distinct");
        many[4999] = many[17].clone();
        assertFalse(ShardCalls.distinct(items(many), 20, 4), "5,000 with one repeat at the end");
    }

    @Test
    void withKeys_appendsTheMoreKeysAfterTheCallsOwn() {
        byte[][] k = ShardCalls.withKeys(new byte[][] {{1}, {2}}, new byte[][] {{3}});
        assertEquals(3, k.length);
        assertArrayEquals(new byte[] {3}, k[2]);
        assertEquals(2, ShardCalls.withKeys(new byte[][] {{1}, {2}}, new byte[0][]).length);
    }
}
