package dev.dedup.agent.store.redis;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dedup.codec.Batch;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HashSet;
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

    @Test
    void everyItemGoesToItsBucketsShard_once_inBatchOrder_withItsCallsDistinctKeys() {
        RedisKeys names = new RedisKeys("dd");
        Batch batch = batch(5000);
        ShardCalls calls = ShardCalls.plan(
                batch.size(), FingerprintBuckets.packing(batch, 123, 64, Routing.single(3), names), 3, 700);
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
                int bucket = FingerprintBuckets.bucket(batch.route(i), 64);
                assertEquals(call.shard(), FingerprintBuckets.shard(bucket, 3));
                int keyIndex = items.getShort(j * FingerprintBuckets.ITEM_BYTES) & 0xffff;
                assertArrayEquals(
                        FingerprintBuckets.bucketKey(names, call.shard(), bucket),
                        call.keys()[keyIndex - 1],
                        "item " + i + "'s key");
            }
        }
        int[] once = new int[batch.size()];
        Arrays.fill(once, 1);
        assertArrayEquals(once, seen, "every item in exactly one call");
    }

    @Test
    void onACluster_aBucketsEveryLevelIsNamed_inItsFirstLevelsSlot() {
        RedisKeys names = RedisKeys.clustered("dd", 4);
        int levels = FingerprintBuckets.declaredLevels(names, 8);
        assertEquals(8, levels);
        for (int bucket = 0; bucket < 64; bucket++) {
            int group = FingerprintBuckets.shard(bucket, 4);
            byte[][] keys = FingerprintBuckets.bucketKeys(names, group, bucket, levels);
            assertEquals(8, keys.length);
            byte[] first = FingerprintBuckets.bucketKey(names, group, bucket);
            assertArrayEquals(first, keys[0], "bucket " + bucket + "'s level 0");
            for (int l = 1; l < 8; l++) {
                byte[] level = Arrays.copyOf(first, first.length + 1);
                level[first.length] = (byte) l;
                assertArrayEquals(level, keys[l], "bucket " + bucket + "'s level " + l);
                assertEquals(RedisKeys.slot(first), RedisKeys.slot(level), "one slot");
            }
        }
    }

    @Test
    void standaloneShards_declareLevelZeroOnly() {
        assertEquals(1, FingerprintBuckets.declaredLevels(new RedisKeys("dd"), 8));
    }

    @Test
    void mergedCalls_declareEachBucketOnce_andRenumberItemsByBucket() {
        RedisKeys names = RedisKeys.clustered("dd", 2);
        Batch first = batch(300);
        Batch second = batch(500); // the same ids and more: shares buckets with the first
        ShardCalls.Call a = ShardCalls.plan(
                        first.size(), FingerprintBuckets.packing(first, 1, 64, Routing.single(2), names), 2, 4096)
                .calls()
                .get(0);
        ShardCalls.Call b = ShardCalls.plan(
                        second.size(), FingerprintBuckets.packing(second, 1, 64, Routing.single(2), names), 2, 4096)
                .calls()
                .get(0);
        ShardCalls.Call merged = CallGathering.merge(java.util.List.of(a, b), FingerprintBuckets.ITEM_BYTES);
        assertEquals(merged.buckets().length, merged.keys().length, "one key a bucket");
        assertEquals(a.indexes().length + b.indexes().length, merged.indexes().length);
        Set<Long> distinct = new HashSet<>();
        for (long bucket : merged.buckets()) {
            assertTrue(distinct.add(bucket), "a bucket appears once in a merged call");
        }
        for (int j = 0; j < merged.buckets().length; j++) {
            assertArrayEquals(
                    FingerprintBuckets.bucketKey(names, merged.shard(), (int) merged.buckets()[j]),
                    merged.keys()[j],
                    "bucket " + j + "'s key");
        }
        ByteBuffer items = ByteBuffer.wrap(merged.items());
        for (int j = 0; j < merged.indexes().length; j++) {
            Batch batch = j < a.indexes().length ? first : second;
            int i = merged.indexes()[j];
            int bucketIndex = items.getShort(j * FingerprintBuckets.ITEM_BYTES) & 0xffff;
            assertEquals(
                    FingerprintBuckets.bucket(batch.route(i), 64),
                    merged.buckets()[bucketIndex - 1],
                    "merged item " + j + " names its bucket");
        }
    }
}
