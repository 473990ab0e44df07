package dev.dedup.agent.store.redis.gather;

import dev.dedup.agent.store.FailureKind;
import dev.dedup.agent.store.LongIntTable;
import dev.dedup.agent.store.StoreUnavailableException;
import dev.dedup.agent.store.redis.access.RedisPort;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Function;

/**
 * A batch's items as script calls, filled by the layout in batch order: per shard, at most {@code maxItems} items a
 * call, the keys of the call's distinct buckets in {@code KEYS} with a few bytes of their own each ({@code keyArgs}),
 * and the items packed in one argument, each naming its bucket by its 1-based index among the call's keys. Items of
 * one id always land in the same call sequence of the same shard, in order, so repeats within a batch are decided in
 * order.
 *
 * <p>For each item, the layout asks {@link #keyIndex} for its bucket, names the bucket with {@link #name} when the
 * call does not hold it yet, and adds the item's bytes with {@link #add}:
 *
 * <pre>{@code
 * int k = plan.keyIndex(shard, bucket);
 * if (k == 0) k = plan.name(shard, bucket, key, keyArg);
 * writeItem(item, k, ...);
 * plan.add(shard, position, item);
 * }</pre>
 */
public final class CallPlan {

    /** Items per script call: bounds how long one call holds a shard. */
    public static final int MAX_ITEMS_PER_CALL = 4096;

    /**
     * One script call: its shard; its buckets (a long that names each within the layout and the shard), their keys
     * and their {@code keyArgs} (the same bytes for each, in the same order); its items (one argument); and where
     * each answer goes among the items planned.
     */
    public record Call(int shard, long[] buckets, byte[][] keys, byte[] keyArgs, byte[] items, int[] indexes) {

        /** The call, with {@code bucket} (key {@code key}, key argument {@code keyArg}) declared after its own. */
        public Call withBucket(long bucket, byte[] key, byte[] keyArg) {
            int n = buckets.length;
            long[] b = Arrays.copyOf(buckets, n + 1);
            b[n] = bucket;
            byte[][] k = Arrays.copyOf(keys, n + 1);
            k[n] = key;
            byte[] a = Arrays.copyOf(keyArgs, keyArgs.length + keyArg.length);
            System.arraycopy(keyArg, 0, a, keyArgs.length, keyArg.length);
            return new Call(shard, b, k, a, items, indexes);
        }
    }

    private final int itemBytes;
    private final int keyArgBytes;
    private final int maxItems;
    /** Most items one call of this plan can hold: what its index of buckets is sized for. */
    private final int callItems;
    /** Items a call's arrays start with room for. */
    private final int room;

    private final Open[] open;
    private final List<List<Call>> done;
    private int planned;

    /**
     * A plan of at most {@code items} items over {@code shards} shards, {@code itemBytes} bytes an item and {@code
     * keyArgBytes} of key argument a bucket, at most {@code maxItems} items a call.
     */
    public CallPlan(int shards, int items, int itemBytes, int keyArgBytes, int maxItems) {
        this.itemBytes = itemBytes;
        this.keyArgBytes = keyArgBytes;
        this.maxItems = maxItems;
        this.callItems = Math.max(1, Math.min(maxItems, items));
        this.room = Math.max(16, Math.min(callItems, items * 2 / shards));
        this.open = new Open[shards];
        this.done = new ArrayList<>(shards);
        for (int s = 0; s < shards; s++) {
            done.add(new ArrayList<>());
        }
    }

    /**
     * The 1-based key index of {@code bucket} in the call {@code shard}'s next item goes to, or 0 when that call
     * does not name it yet. A call that holds {@code maxItems} items is closed first: the next item starts another.
     */
    public int keyIndex(int shard, long bucket) {
        Open call = open[shard];
        if (call == null || call.items == maxItems) {
            if (call != null) {
                done.get(shard).add(call.close(shard));
            }
            call = open[shard] = new Open();
        }
        int k = call.bucketIndex.get(bucket);
        return k == LongIntTable.ABSENT ? 0 : k + 1;
    }

    /**
     * Names {@code bucket} in the call {@code shard}'s next item goes to, with its key and its {@code keyArgBytes}
     * of key argument; returns its 1-based key index. Called once {@link #keyIndex} has answered 0 for it.
     */
    public int name(int shard, long bucket, byte[] key, byte[] keyArg) {
        if (keyArg.length != keyArgBytes) {
            throw new IllegalArgumentException("a key argument of " + keyArg.length + " bytes, not " + keyArgBytes);
        }
        Open call = open[shard];
        int k = call.keys.size();
        call.bucketIndex.putIfAbsent(bucket, k);
        call.keys.add(key);
        call.buckets = grow(call.buckets, k + 1);
        call.buckets[k] = bucket;
        call.keyArgs = grow(call.keyArgs, (k + 1) * keyArgBytes);
        System.arraycopy(keyArg, 0, call.keyArgs, k * keyArgBytes, keyArgBytes);
        return k + 1;
    }

    /**
     * Adds an item to {@code shard}'s call: its {@code itemBytes} bytes from {@code item}, whose answer goes to
     * {@code position} among the items planned.
     */
    public void add(int shard, int position, byte[] item) {
        Open call = open[shard];
        int j = call.items++;
        call.bytes = grow(call.bytes, (j + 1) * itemBytes);
        System.arraycopy(item, 0, call.bytes, j * itemBytes, itemBytes);
        call.indexes = grow(call.indexes, j + 1);
        call.indexes[j] = position;
        planned = Math.max(planned, position + 1);
    }

    /** The calls planned: shard by shard, each shard's in the order of its items. */
    public List<Call> calls() {
        List<Call> out = new ArrayList<>();
        for (int s = 0; s < open.length; s++) {
            if (open[s] != null) {
                done.get(s).add(open[s].close(s));
                open[s] = null;
            }
            out.addAll(done.get(s));
        }
        return out;
    }

    /**
     * Makes the calls with {@code send}, shards in parallel, and gathers the answers by position. {@code send}
     * completes with a call's answers, one per item. Fails as a whole when any call fails.
     */
    public CompletionStage<byte[]> run(RedisPort port, Function<Call, CompletionStage<byte[]>> send) {
        List<Call> calls = calls();
        byte[] answers = new byte[planned];
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

    /** A call being filled. */
    private final class Open {
        final LongIntTable bucketIndex = new LongIntTable(callItems); // a bucket's index among the keys, from 0
        final List<byte[]> keys = new ArrayList<>(room);
        long[] buckets = new long[room];
        byte[] keyArgs = new byte[room * keyArgBytes];
        byte[] bytes = new byte[room * itemBytes];
        int[] indexes = new int[room];
        int items;

        Call close(int shard) {
            int n = keys.size();
            return new Call(
                    shard,
                    Arrays.copyOf(buckets, n),
                    keys.toArray(byte[][]::new),
                    Arrays.copyOf(keyArgs, n * keyArgBytes),
                    Arrays.copyOf(bytes, items * itemBytes),
                    Arrays.copyOf(indexes, items));
        }
    }

    private static long[] grow(long[] a, int n) {
        return n <= a.length ? a : Arrays.copyOf(a, Math.max(n, a.length * 2));
    }

    private static int[] grow(int[] a, int n) {
        return n <= a.length ? a : Arrays.copyOf(a, Math.max(n, a.length * 2));
    }

    private static byte[] grow(byte[] a, int n) {
        return n <= a.length ? a : Arrays.copyOf(a, Math.max(n, a.length * 2));
    }
}
