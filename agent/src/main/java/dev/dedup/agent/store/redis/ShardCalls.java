package dev.dedup.agent.store.redis;

import dev.dedup.wire.Batch;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A batch split into script calls: per shard, in batch order, at most {@code maxItems} items a call,
 * with the distinct bucket keys of the call in {@code KEYS} and the items packed in one argument. Items of one id
 * always land in the same call sequence of the same shard, in order, so repeats within a batch are
 * decided in order.
 */
final class ShardCalls {

    /** One script call: its shard, its keys, its items (one argument) and where each answer goes in the batch. */
    record Call(int shard, byte[][] keys, byte[] items, int[] indexes) {
    }

    private final List<Call> calls;

    private ShardCalls(List<Call> calls) {
        this.calls = calls;
    }

    List<Call> calls() {
        return calls;
    }

    int size() {
        return calls.size();
    }

    static ShardCalls plan(Batch batch, RedisLayout layout, int maxItems, int expiry) {
        int n = batch.size();
        int shards = layout.shards();
        int[] bucketOf = new int[n];
        int[] shardOf = new int[n];
        int[] perShard = new int[shards];
        for (int i = 0; i < n; i++) {
            bucketOf[i] = layout.bucket(batch.route(i));
            shardOf[i] = layout.shard(bucketOf[i]);
            perShard[shardOf[i]]++;
        }
        int[][] indexes = new int[shards][];
        int[] filled = new int[shards];
        for (int s = 0; s < shards; s++) {
            indexes[s] = new int[perShard[s]];
        }
        for (int i = 0; i < n; i++) {
            int s = shardOf[i];
            indexes[s][filled[s]++] = i;
        }
        List<Call> calls = new ArrayList<>();
        for (int s = 0; s < shards; s++) {
            int[] all = indexes[s];
            for (int from = 0; from < all.length; from += maxItems) {
                int to = Math.min(all.length, from + maxItems);
                calls.add(call(batch, layout, s, all, from, to, bucketOf, expiry));
            }
        }
        return new ShardCalls(calls);
    }

    private static Call call(Batch batch, RedisLayout layout, int shard, int[] all, int from, int to, int[] bucketOf,
                             int expiry) {
        Map<Integer, Integer> keyIndex = new HashMap<>();
        List<byte[]> keys = new ArrayList<>();
        byte[] items = new byte[(to - from) * RedisLayout.ITEM_BYTES];
        int[] indexes = new int[to - from];
        for (int j = from; j < to; j++) {
            int i = all[j];
            int bucket = bucketOf[i];
            Integer k = keyIndex.get(bucket);
            if (k == null) {
                keys.add(layout.bucketKey(bucket));
                k = keys.size();
                keyIndex.put(bucket, k);
            }
            RedisLayout.item(items, (j - from) * RedisLayout.ITEM_BYTES, k, batch.key(i),
                    RedisLayout.ownerTag(batch.owner(i)), expiry);
            indexes[j - from] = i;
        }
        return new Call(shard, keys.toArray(byte[][]::new), items, indexes);
    }
}
