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
}
