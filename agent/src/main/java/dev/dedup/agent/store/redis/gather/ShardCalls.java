package dev.dedup.agent.store.redis.gather;

import dev.dedup.agent.store.FailureKind;
import dev.dedup.agent.store.LongIntTable;
import dev.dedup.agent.store.StoreUnavailableException;
import dev.dedup.agent.store.redis.access.RedisPort;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Function;

/**
 * A batch split into script calls: per shard, in batch order, at most {@code maxItems} items a call,
 * with the keys of the call's distinct buckets in {@code KEYS} and the items packed in one argument. Items of one id
 * always land in the same call sequence of the same shard, in order, so repeats within a batch are
 * decided in order. The layout decides buckets, keys and how an item is packed ({@link Packing}).
 */
public final class ShardCalls {

    /** Items per script call: bounds how long one call holds a shard. */
    public static final int MAX_ITEMS_PER_CALL = 4096;

    /**
     * One script call: its shard, its keys, the buckets they name (same order, one key each), its items (one
     * argument) and where each answer goes in the batch.
     */
    public record Call(int shard, byte[][] keys, long[] buckets, byte[] items, int[] indexes) {}

    /** How one layout files items: the bucket of each, its shard and key, and the bytes of an item. */
    public interface Packing {
        /** Item {@code i}'s bucket: any long that names it within the layout. */
        long bucket(int i);

        int shard(long bucket);

        /** The key {@code bucket}, which lives on {@code shard}, declares in a call. */
        byte[] key(int shard, long bucket);

        int itemBytes();

        /**
         * Writes item {@code i} at {@code at}, naming its bucket by its 1-based index among the call's
         * buckets, which is its key's index in the call's keys.
         */
        void write(byte[] items, int at, int keyIndex, int i);
    }

    private final int items;
    private final List<Call> calls;

    private ShardCalls(int items, List<Call> calls) {
        this.items = items;
        this.calls = calls;
    }

    public List<Call> calls() {
        return calls;
    }

    int size() {
        return calls.size();
    }

    public static ShardCalls plan(int n, Packing packing, int shards, int maxItems) {
        long[] bucketOf = new long[n];
        int[] shardOf = new int[n];
        int[] perShard = new int[shards];
        for (int i = 0; i < n; i++) {
            bucketOf[i] = packing.bucket(i);
            shardOf[i] = packing.shard(bucketOf[i]);
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
                calls.add(call(packing, s, all, from, to, bucketOf));
            }
        }
        return new ShardCalls(n, calls);
    }

    /**
     * Makes the calls with {@code send}, shards in parallel, and gathers the answers in batch order. {@code send}
     * completes with a call's answers, one per item. Fails as a whole when any call fails.
     */
    public CompletionStage<byte[]> run(RedisPort port, Function<Call, CompletionStage<byte[]>> send) {
        byte[] answers = new byte[items];
        if (calls.isEmpty()) {
            return CompletableFuture.completedFuture(answers);
        }
        List<CompletableFuture<Void>> pending = new ArrayList<>(calls.size());
        for (Call call : calls) {
            pending.add(send.apply(call)
                    .<Void>thenApply(got -> {
                        if (got.length != call.indexes().length) {
                            throw new StoreUnavailableException(
                                    FailureKind.ERROR,
                                    "redis shard " + port.name(call.shard()) + " answered " + got.length
                                            + " verdicts for " + call.indexes().length + " items",
                                    null);
                        }
                        for (int i = 0; i < got.length; i++) {
                            answers[call.indexes()[i]] = got[i];
                        }
                        return null;
                    })
                    .toCompletableFuture());
        }
        return CompletableFuture.allOf(pending.toArray(CompletableFuture[]::new))
                .thenApply(ignored -> answers);
    }

    /**
     * Whether no bucket and field come twice among a call's {@code items} ({@code itemBytes} each: a u16 key index,
     * and the 7-byte field at {@code fieldAt}): a script then needs not remember the claims it writes, which is a
     * Lua table entry per new id. Two items whose key index and field differ but mix to the same long are taken for
     * a repeat, which only costs that call the table.
     */
    public static boolean distinct(byte[] items, int itemBytes, int fieldAt) {
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

    private static Call call(Packing packing, int shard, int[] all, int from, int to, long[] bucketOf) {
        int n = to - from;
        int itemBytes = packing.itemBytes();
        LongIntTable bucketIndex = new LongIntTable(n); // a bucket's index among the call's keys, from 0
        byte[][] keys = new byte[n][];
        long[] buckets = new long[n];
        int distinct = 0;
        byte[] items = new byte[n * itemBytes];
        int[] indexes = new int[n];
        for (int j = from; j < to; j++) {
            int i = all[j];
            long bucket = bucketOf[i];
            int k = bucketIndex.putIfAbsent(bucket, distinct);
            if (k == LongIntTable.ABSENT) {
                buckets[distinct] = bucket;
                keys[distinct] = packing.key(shard, bucket);
                k = distinct++;
            }
            packing.write(items, (j - from) * itemBytes, k + 1, i);
            indexes[j - from] = i;
        }
        return new Call(
                shard,
                java.util.Arrays.copyOf(keys, distinct),
                java.util.Arrays.copyOf(buckets, distinct),
                items,
                indexes);
    }

    /** {@code keys} followed by {@code more}. */
    public static byte[][] withKeys(byte[][] keys, byte[][] more) {
        byte[][] k = java.util.Arrays.copyOf(keys, keys.length + more.length);
        System.arraycopy(more, 0, k, keys.length, more.length);
        return k;
    }
}
