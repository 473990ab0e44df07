package dev.dedup.agent.store.redis;

import dev.dedup.wire.Batch;
import java.util.ArrayList;
import java.util.List;

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
        int n = to - from;
        BucketIndex keyIndex = new BucketIndex(n);
        List<byte[]> keys = new ArrayList<>();
        byte[] items = new byte[n * RedisLayout.ITEM_BYTES];
        int[] indexes = new int[n];
        for (int j = from; j < to; j++) {
            int i = all[j];
            int bucket = bucketOf[i];
            int k = keyIndex.get(bucket);
            if (k == 0) {
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

    /** Bucket number to its 1-based index in a call's keys (0: not yet there): open addressing on ints. */
    private static final class BucketIndex {
        private final int[] buckets;
        private final int[] indexes;
        private final int mask;

        BucketIndex(int expected) {
            int capacity = Integer.highestOneBit(Math.max(4, expected * 2 - 1)) << 1;
            buckets = new int[capacity];
            indexes = new int[capacity];
            mask = capacity - 1;
        }

        int get(int bucket) {
            for (int slot = slot(bucket); ; slot = (slot + 1) & mask) {
                if (indexes[slot] == 0 || buckets[slot] == bucket) {
                    return indexes[slot];
                }
            }
        }

        void put(int bucket, int index) {
            int slot = slot(bucket);
            while (indexes[slot] != 0 && buckets[slot] != bucket) {
                slot = (slot + 1) & mask;
            }
            buckets[slot] = bucket;
            indexes[slot] = index;
        }

        private int slot(int bucket) {
            return (bucket * 0x9E3779B9) >>> 7 & mask;
        }
    }
}
