package dev.dedup.agent.store.redis.layout;

import dev.dedup.agent.metrics.MetricNames;
import dev.dedup.agent.store.FailureKind;
import dev.dedup.agent.store.StoreUnavailableException;
import dev.dedup.agent.store.redis.access.Mode;
import dev.dedup.agent.store.redis.access.RedisKeys;
import dev.dedup.agent.store.redis.access.RedisPort;
import dev.dedup.agent.store.redis.access.RedisScript;
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
import java.util.function.Function;

/**
 * The calls of {@code claims.lua} that claim, release or look up a batch's items in one fingerprint table: planned
 * into one call per shard ({@link ShardCalls}) against the table's states this agent last saw, gathered with other
 * batches' calls to the same shard ({@link CallGathering}; a look-up goes alone), and planned again for the items
 * whose buckets another agent's split or merge moved meanwhile. Every state a reply carries goes to {@link
 * TableResizing}.
 */
final class ClaimCalls {

    /** Times a call is addressed anew because other agents keep splitting its buckets, before it fails. */
    static final int STALE_ATTEMPTS = 8;
    /**
     * On a Redis Cluster, where a call may touch only the keys it declares, it declares the images of the buckets
     * it names among the next this many to be split, so that a split by another agent meanwhile does not send it
     * back.
     */
    static final int IMAGES_AHEAD = 64;

    private static final byte[] ONE = {'1'};
    private static final byte[] ZERO = {'0'};

    /** The items of a batch in one call sequence: their shards and the owner-and-end each record carries. */
    record Items(Batch batch, int[] shard, long[] value, Mode mode) {}

    /** Answers per position, and for a look-up the owner-and-end of every claim found (0 where none). */
    record Found(byte[] answers, long[] values) {}

    private final RedisPort port;
    private final RedisKeys keys;
    private final int baseBits;
    private final TableResizing resizing;
    private final CallGathering gathering;
    private final byte[] channel;
    private final byte[] baseArg;
    private final Counter[] stale;

    ClaimCalls(RedisPort port, RedisKeys keys, int baseBits, TableResizing resizing, MeterRegistry registry) {
        this.port = port;
        this.keys = keys;
        this.baseBits = baseBits;
        this.resizing = resizing;
        this.gathering = new CallGathering(port, RedisScript.CLAIMS, FingerprintRecord.ITEM_BYTES, registry);
        this.channel = keys.releaseChannel();
        this.baseArg = RedisKeys.ascii(baseBits);
        this.stale = ShardCounters.of(
                registry,
                port,
                MetricNames.REDIS_STALE_CALLS,
                "Claim calls addressed anew because other agents split or merged their buckets meanwhile");
    }

    /**
     * Sends the items at {@code positions}, addressed by the states last seen; completes with their answers (and
     * values) in the order of {@code positions}.
     */
    CompletionStage<Found> send(FingerprintTable table, Items items, int[] positions, long nowMillis) {
        return send(table, items, positions, nowMillis, 1);
    }

    /**
     * The same; items whose buckets another agent moved meanwhile are addressed anew and sent again ({@code
     * attempt} counts how often).
     */
    private CompletionStage<Found> send(
            FingerprintTable table, Items items, int[] positions, long nowMillis, int attempt) {
        TableState[] view = new TableState[port.shards()];
        for (int s = 0; s < view.length; s++) {
            view[s] = table.states.get(s);
        }
        ShardCalls calls = ShardCalls.plan(
                positions.length, packing(table, items, positions, view), port.shards(), ShardCalls.MAX_ITEMS_PER_CALL);
        byte[] answers = new byte[positions.length];
        long[] values = new long[positions.length];
        List<CompletableFuture<Void>> pending = new ArrayList<>();
        for (ShardCalls.Call call : calls.calls()) {
            int[] sub = new int[call.indexes().length];
            for (int j = 0; j < sub.length; j++) {
                sub[j] = positions[call.indexes()[j]];
            }
            pending.add(sendCall(table, items, call, view[call.shard()], nowMillis, attempt)
                    .thenCompose(reply -> reply != null
                            ? CompletableFuture.completedFuture(reply)
                            : send(table, items, sub, nowMillis, attempt + 1))
                    .<Void>thenApply(found -> {
                        if (found.answers().length != sub.length) {
                            throw new StoreUnavailableException(
                                    FailureKind.ERROR,
                                    "redis shard " + port.name(call.shard()) + " answered " + found.answers().length
                                            + " verdicts for " + sub.length + " items",
                                    null);
                        }
                        for (int j = 0; j < sub.length; j++) {
                            answers[call.indexes()[j]] = found.answers()[j];
                            values[call.indexes()[j]] = found.values()[j];
                        }
                        return null;
                    })
                    .toCompletableFuture());
        }
        return CompletableFuture.allOf(pending.toArray(CompletableFuture[]::new))
                .thenApply(ignored -> new Found(answers, values));
    }

    /**
     * One call, as planned against {@code view}; completes with its answers, or with null when the shard said its
     * buckets had moved (the caller plans its items again), after {@value #STALE_ATTEMPTS} such answers in a row
     * with a failure.
     */
    private CompletionStage<Found> sendCall(
            FingerprintTable table, Items items, ShardCalls.Call call, TableState view, long nowMillis, int attempt) {
        long nowSecond = Math.floorDiv(nowMillis, 1000L);
        byte[] now = FingerprintRecord.now(nowMillis);
        byte[] viewArg = view.view().getBytes(StandardCharsets.US_ASCII);
        byte[] sliding = table.slidingArg();
        byte[] cluster = {(byte) (keys.clustered() ? '1' : '0')};
        byte[] head = table.bucketHeads[call.shard()];
        Function<ShardCalls.Call, byte[][]> argsOf = c -> {
            byte[] buckets = new byte[c.buckets().length * 4];
            for (int k = 0; k < c.buckets().length; k++) {
                long b = c.buckets()[k];
                for (int i = 0; i < 4; i++) {
                    buckets[k * 4 + i] = (byte) (b >>> (24 - 8 * i));
                }
            }
            return new byte[][] {
                items.mode().arg(),
                c.items(),
                now,
                viewArg,
                buckets,
                sliding,
                channel,
                baseArg,
                table.nameArg,
                cluster,
                head,
                ShardCalls.distinct(c.items(), FingerprintRecord.ITEM_BYTES, FingerprintRecord.FIELD_AT) ? ONE : ZERO
            };
        };
        ShardCalls.Call sendable = keys.clustered() ? withImages(table, call, view) : call;
        byte[][] tableKeys = {table.stateKeys[call.shard()], table.setKeys[call.shard()]};
        CompletionStage<CallGathering.Reply> sent = items.mode() == Mode.LOOKUP
                ? port.eval(
                                call.shard(),
                                RedisScript.CLAIMS,
                                Mode.LOOKUP,
                                ShardCalls.withKeys(sendable.keys(), tableKeys),
                                argsOf.apply(sendable))
                        .thenApply(script -> new CallGathering.Reply(
                                script.get(0) instanceof byte[] b ? b : new byte[0], script, true))
                : gathering.submit(sendable, items.mode(), List.of(table.name, view, nowSecond), argsOf, tableKeys);
        return sent.thenCompose(reply -> {
            List<Object> script = reply.script();
            resizing.observed(table, call.shard(), TableState.of(script), nowMillis);
            if (script.size() > 4 && "stale".equals(text(script.get(4)))) {
                stale[call.shard()].increment();
                if (attempt >= STALE_ATTEMPTS) {
                    throw new StoreUnavailableException(
                            FailureKind.ERROR,
                            "redis shard " + port.name(call.shard()) + ": table " + table.name + " kept changing under "
                                    + attempt + " calls in a row",
                            null);
                }
                return CompletableFuture.completedFuture(null);
            }
            return CompletableFuture.completedFuture(found(reply, items.mode()));
        });
    }

    /**
     * {@code call} declaring besides its buckets the images of those among the next {@value #IMAGES_AHEAD} to be
     * split in {@code view}: where their items go if another agent splits them before the call runs.
     */
    private ShardCalls.Call withImages(FingerprintTable table, ShardCalls.Call call, TableState view) {
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
    private ShardCalls.Packing packing(FingerprintTable table, Items items, int[] positions, TableState[] view) {
        Batch batch = items.batch();
        return new ShardCalls.Packing() {
            @Override
            public long bucket(int j) {
                int i = positions[j];
                int shard = items.shard()[i];
                return ((long) shard << 32) | view[shard].bucket(baseBits, FingerprintRecord.lowRoute(batch.route(i)));
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
                return FingerprintRecord.ITEM_BYTES;
            }

            @Override
            public void write(byte[] a, int at, int keyIndex, int j) {
                int i = positions[j];
                FingerprintRecord.item(
                        a,
                        at,
                        keyIndex,
                        batch.key(i),
                        FingerprintRecord.lowRoute(batch.route(i)),
                        baseBits,
                        items.value()[i]);
            }
        };
    }

    /**
     * Reads a table's state on a shard (a look-up of no item), and splits or merges buckets if it is due: tests
     * wait with it for a table to settle.
     */
    CompletionStage<TableState> refresh(FingerprintTable table, int shard, long nowMillis) {
        byte[][] k = {table.stateKeys[shard], table.setKeys[shard]};
        byte[][] args = {
            Mode.LOOKUP.arg(),
            new byte[0],
            FingerprintRecord.now(nowMillis),
            TableState.EMPTY.view().getBytes(StandardCharsets.US_ASCII),
            new byte[0],
            new byte[] {'0'},
            channel,
            baseArg,
            table.nameArg,
            new byte[] {(byte) (keys.clustered() ? '1' : '0')},
            table.bucketHeads[shard],
            ONE
        };
        return port.eval(shard, RedisScript.CLAIMS, Mode.LOOKUP, k, args).thenApply(script -> {
            TableState state = TableState.of(script);
            resizing.observed(table, shard, state, nowMillis);
            return state;
        });
    }
}
