package dev.dedup.agent.store.redis.layout;

import dev.dedup.agent.metrics.MetricNames;
import dev.dedup.agent.store.FailureKind;
import dev.dedup.agent.store.StoreUnavailableException;
import dev.dedup.agent.store.redis.access.Housekeeping;
import dev.dedup.agent.store.redis.access.RedisKeys;
import dev.dedup.agent.store.redis.access.RedisPort;
import dev.dedup.agent.store.redis.access.RedisPort.Op;
import dev.dedup.agent.store.redis.access.RedisScript;
import dev.dedup.agent.store.redis.access.RedisScript.Mode;
import dev.dedup.agent.store.redis.access.Retry;
import dev.dedup.agent.store.redis.access.ShardCounters;
import dev.dedup.agent.store.redis.gather.CallGathering;
import dev.dedup.agent.store.redis.gather.ShardCalls;
import dev.dedup.codec.Batch;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;
import java.util.stream.IntStream;

/**
 * The calls of {@code claims.lua} that claim, release or look up a batch's items in one fingerprint table: planned
 * into one call per shard ({@link ShardCalls}) against the table's states this agent last saw, gathered with other
 * batches' calls to the same shard ({@link CallGathering}; a look-up goes alone), and on a Redis Cluster planned
 * again for the items whose buckets another agent's split or merge moved meanwhile. Every state a reply carries
 * goes to {@link TableResizing}.
 */
final class ClaimCalls {

    /** A call addressed anew, at once, while other agents keep splitting its buckets: eight tries, then it fails. */
    static final Retry STALE = Retry.every(8, 0);
    /**
     * On a Redis Cluster, where a call may touch only the keys it declares, it declares the images of the buckets
     * it names among the next this many to be split, so that a split by another agent meanwhile does not send it
     * back.
     */
    static final int IMAGES_AHEAD = 64;

    private static final int[] NONE_STALE = {};

    /** The items of a batch in one call sequence: their shards and the owner-and-end each record carries. */
    record Items(Batch batch, int[] shard, long[] value, Mode mode) {}

    /** Answers per position, and for a look-up the owner-and-end of every claim found (0 where none). */
    record Found(byte[] answers, long[] values) {}

    private final RedisPort port;
    /** Whether the keys are a Redis Cluster's, where a call declares the images of the buckets it names. */
    private final boolean clustered;

    private final int baseBits;
    private final TableResizing resizing;
    private final CallGathering gathering;
    private final Retry.Pauses pauses;
    private final ClaimsCall.Shared shared;
    private final Counter[] stale;

    ClaimCalls(
            RedisPort port,
            RedisKeys keys,
            int baseBits,
            TableResizing resizing,
            MeterRegistry registry,
            Housekeeping housekeeping) {
        this.port = port;
        this.clustered = keys.clustered();
        this.baseBits = baseBits;
        this.resizing = resizing;
        this.pauses = housekeeping;
        this.gathering = new CallGathering(
                port, RedisScript.CLAIMS, FingerprintTable.Records.ITEM_BYTES, registry, housekeeping.ticker());
        this.shared = new ClaimsCall.Shared(keys, baseBits);
        this.stale = ShardCounters.of(
                registry,
                port,
                MetricNames.REDIS_STALE_CALLS,
                "Claim calls addressed anew because other agents split or merged their buckets meanwhile");
    }

    /**
     * Sends the items at {@code positions}, addressed by the states last seen; completes with their answers (and
     * values) in the order of {@code positions}. On a Redis Cluster, items whose buckets another agent moved
     * meanwhile are addressed anew and sent again, at most {@link #STALE} rounds in all; a standalone shard finds
     * a moved bucket itself and never answers stale, so there one round is all.
     */
    CompletionStage<Found> send(FingerprintTable table, Items items, int[] positions, long nowMillis) {
        byte[] answers = new byte[positions.length];
        long[] values = new long[positions.length];
        int[] all = new int[positions.length];
        for (int j = 0; j < all.length; j++) {
            all[j] = j;
        }
        CompletionStage<int[]> sent;
        if (clustered) {
            AtomicReference<int[]> left = new AtomicReference<>(all);
            sent = STALE.run(
                    pauses,
                    () -> sendRound(table, items, positions, left.get(), answers, values, nowMillis)
                            .thenApply(stale -> {
                                left.set(stale);
                                return stale;
                            }),
                    (stale, failure, pauseMillis) -> failure == null && stale.length > 0);
        } else {
            sent = sendRound(table, items, positions, all, answers, values, nowMillis);
        }
        return sent.thenApply(stale -> {
            if (stale.length > 0) {
                throw new StoreUnavailableException(
                        FailureKind.ERROR,
                        "redis shard " + port.name(items.shard()[positions[stale[0]]]) + ": table "
                                + table.name + " kept changing under " + STALE.attempts()
                                + " calls in a row",
                        null);
            }
            return new Found(answers, values);
        });
    }

    /**
     * One round: the items at {@code positions[at[..]]}, planned into calls against the states last seen and sent;
     * their answers and values go to the same places of {@code answers} and {@code values}. Completes with the
     * indexes (into {@code positions}) of the items whose calls came back stale.
     */
    private CompletionStage<int[]> sendRound(
            FingerprintTable table,
            Items items,
            int[] positions,
            int[] at,
            byte[] answers,
            long[] values,
            long nowMillis) {
        FingerprintTable.State[] view = new FingerprintTable.State[port.shards()];
        for (int s = 0; s < view.length; s++) {
            view[s] = table.states.get(s);
        }
        int[] sending = new int[at.length];
        for (int j = 0; j < at.length; j++) {
            sending[j] = positions[at[j]];
        }
        ShardCalls calls = ShardCalls.plan(
                sending.length, packing(table, items, sending, view), port.shards(), ShardCalls.MAX_ITEMS_PER_CALL);
        List<CompletableFuture<int[]>> pending = new ArrayList<>();
        for (ShardCalls.Call call : calls.calls()) {
            int[] indexes = call.indexes();
            pending.add(sendCall(table, items, call, view[call.shard()], nowMillis)
                    .thenApply(found -> {
                        int[] sent = new int[indexes.length];
                        for (int j = 0; j < sent.length; j++) {
                            sent[j] = at[indexes[j]];
                        }
                        if (found == null) {
                            return sent;
                        }
                        if (found.answers().length != sent.length) {
                            throw new StoreUnavailableException(
                                    FailureKind.ERROR,
                                    "redis shard " + port.name(call.shard()) + " answered " + found.answers().length
                                            + " verdicts for " + sent.length + " items",
                                    null);
                        }
                        for (int j = 0; j < sent.length; j++) {
                            answers[sent[j]] = found.answers()[j];
                            values[sent[j]] = found.values()[j];
                        }
                        return NONE_STALE;
                    })
                    .toCompletableFuture());
        }
        return CompletableFuture.allOf(pending.toArray(CompletableFuture[]::new))
                .thenApply(ignored -> pending.stream()
                        .flatMapToInt(stale -> IntStream.of(stale.join()))
                        .sorted() // sent again in the batch's order, as the first time
                        .toArray());
    }

    /**
     * One call, as planned against {@code view}; completes with its answers, or with null when the shard said its
     * buckets had moved (the items are then planned again).
     */
    private CompletionStage<Found> sendCall(
            FingerprintTable table, Items items, ShardCalls.Call call, FingerprintTable.State view, long nowMillis) {
        long nowSecond = Math.floorDiv(nowMillis, 1000L);
        ClaimsCall claims = new ClaimsCall(shared, table, call.shard(), items.mode(), view, nowMillis);
        Function<ShardCalls.Call, byte[][]> argsOf = c -> claims.args(c.items(), c.buckets());
        ShardCalls.Call sendable = clustered ? withImages(table, call, view) : call;
        byte[][] tableKeys = claims.tableKeys();
        CompletionStage<CallGathering.Reply> sent = items.mode() == Mode.LOOKUP
                ? port.eval(
                                call.shard(),
                                RedisScript.CLAIMS,
                                Op.LOOKUP,
                                ShardCalls.withKeys(sendable.keys(), tableKeys),
                                argsOf.apply(sendable))
                        .thenApply(script -> new CallGathering.Reply(
                                script.get(0) instanceof byte[] b ? b : new byte[0], script, true))
                : gathering.submit(
                        sendable, items.mode().op(), List.of(table.name, view, nowSecond), argsOf, tableKeys);
        return sent.thenCompose(reply -> {
            List<Object> script = reply.script();
            resizing.observed(table, call.shard(), FingerprintTable.State.of(script), nowMillis);
            if (script.size() > 4 && "stale".equals(text(script.get(4)))) {
                stale[call.shard()].increment();
                return CompletableFuture.completedFuture(null);
            }
            return CompletableFuture.completedFuture(found(reply, items.mode()));
        });
    }

    /**
     * {@code call} declaring besides its buckets the images of those among the next {@value #IMAGES_AHEAD} to be
     * split in {@code view}: where their items go if another agent splits them before the call runs.
     */
    private ShardCalls.Call withImages(FingerprintTable table, ShardCalls.Call call, FingerprintTable.State view) {
        long low = 1L << (baseBits + view.level());
        Set<Long> named = new HashSet<>();
        for (long b : call.buckets()) {
            named.add(b);
        }
        List<Long> images = new ArrayList<>();
        for (long packed : call.buckets()) {
            long b = packed & 0xffff_ffffL;
            long image = (packed & ~0xffff_ffffL) | (b + low);
            if (b >= view.split() && b < view.split() + IMAGES_AHEAD && b < low && named.add(image)) {
                images.add(image);
            }
        }
        if (images.isEmpty()) {
            return call;
        }
        int n = call.buckets().length;
        long[] buckets = Arrays.copyOf(call.buckets(), n + images.size());
        byte[][] k = Arrays.copyOf(call.keys(), n + images.size());
        for (int i = 0; i < images.size(); i++) {
            buckets[n + i] = images.get(i);
            k[n + i] = table.bucketKey(call.shard(), images.get(i) & 0xffff_ffffL);
        }
        return new ShardCalls.Call(call.shard(), k, buckets, call.items(), call.indexes());
    }

    private static Found found(CallGathering.Reply reply, Mode mode) {
        byte[] answers = reply.answers();
        long[] values = new long[answers.length];
        if (mode == Mode.LOOKUP && reply.script().size() > 4 && reply.script().get(4) instanceof byte[] found) {
            int at = 0;
            for (int i = 0; i < answers.length; i++) {
                if (answers[i] != 0 && at + 7 <= found.length) {
                    long v = 0;
                    for (int b = 0; b < 7; b++) {
                        v = (v << 8) | (found[at + b] & 0xff);
                    }
                    values[i] = v;
                    at += 7;
                }
            }
        }
        return new Found(answers, values);
    }

    private static String text(Object o) {
        return o instanceof byte[] b ? new String(b, StandardCharsets.US_ASCII) : String.valueOf(o);
    }

    /**
     * The items at {@code positions} for {@link ShardCalls}, addressed by {@code view}: a bucket is the shard in
     * its high 32 bits and the bucket's number in the low ones.
     */
    private ShardCalls.Packing packing(
            FingerprintTable table, Items items, int[] positions, FingerprintTable.State[] view) {
        Batch batch = items.batch();
        return new ShardCalls.Packing() {
            @Override
            public long bucket(int j) {
                int i = positions[j];
                int shard = items.shard()[i];
                return ((long) shard << 32)
                        | view[shard].bucket(baseBits, FingerprintTable.Records.lowRoute(batch.route(i)));
            }

            @Override
            public int shard(long bucket) {
                return (int) (bucket >>> 32);
            }

            @Override
            public byte[] key(int shard, long bucket) {
                return table.bucketKey(shard, bucket & 0xffff_ffffL);
            }

            @Override
            public int itemBytes() {
                return FingerprintTable.Records.ITEM_BYTES;
            }

            @Override
            public void write(byte[] a, int at, int keyIndex, int j) {
                int i = positions[j];
                FingerprintTable.Records.item(
                        a,
                        at,
                        keyIndex,
                        batch.key(i),
                        FingerprintTable.Records.lowRoute(batch.route(i)),
                        baseBits,
                        items.value()[i]);
            }
        };
    }

    /**
     * Reads a table's state on a shard (a look-up of no item), and splits or merges buckets if it is due: tests
     * wait with it for a table to settle.
     */
    CompletionStage<FingerprintTable.State> refresh(FingerprintTable table, int shard, long nowMillis) {
        ClaimsCall claims = new ClaimsCall(shared, table, shard, Mode.LOOKUP, FingerprintTable.State.EMPTY, nowMillis);
        return port.eval(
                        shard, RedisScript.CLAIMS, Op.LOOKUP, claims.tableKeys(), claims.args(new byte[0], new long[0]))
                .thenApply(reply -> {
                    FingerprintTable.State state = FingerprintTable.State.of(reply);
                    resizing.observed(table, shard, state, nowMillis);
                    return state;
                });
    }
}
