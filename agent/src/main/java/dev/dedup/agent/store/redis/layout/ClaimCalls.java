package dev.dedup.agent.store.redis.layout;

import dev.dedup.agent.metrics.MetricNames;
import dev.dedup.agent.store.EventClocks;
import dev.dedup.agent.store.FailureKind;
import dev.dedup.agent.store.StoreUnavailableException;
import dev.dedup.agent.store.redis.access.Housekeeping;
import dev.dedup.agent.store.redis.access.RedisKeys;
import dev.dedup.agent.store.redis.access.RedisPort;
import dev.dedup.agent.store.redis.access.RedisPort.Op;
import dev.dedup.agent.store.redis.access.RedisPort.Script;
import dev.dedup.agent.store.redis.access.RedisPort.Script.Mode;
import dev.dedup.agent.store.redis.access.Retry;
import dev.dedup.agent.store.redis.access.ShardCounters;
import dev.dedup.agent.store.redis.gather.CallForm;
import dev.dedup.agent.store.redis.gather.CallGathering;
import dev.dedup.agent.store.redis.gather.CallPlan;
import dev.dedup.agent.store.redis.gather.ScriptCall;
import dev.dedup.codec.Batch;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.IntStream;

/**
 * The calls of {@code claims.lua} that claim, release or look up a batch's items in one fingerprint table: planned
 * into calls per shard ({@link FingerprintTable#plan}) against the table's states this agent last saw, gathered with other
 * batches' calls to the same shard ({@link CallGathering}; a look-up goes alone), and on a Redis Cluster planned
 * again for the items whose buckets another agent's split or merge moved meanwhile. Every state a reply carries
 * is the table's from then on ({@link FingerprintTable#observe}), and a change of size it is due
 * goes to {@link TableResizing}.
 *
 * <p>{@code claims.lua} is sent after {@code guard.lua}, {@code answers.lua} and {@code records.lua}, as one script.
 * It replies {@code {answers, level, split, claims}}: one answer byte per item, in order (a claim: 0 new, 1 retry,
 * 2 duplicate; a release: 1 released, 0 not held by that owner; a look-up: 0 absent, 1 held by the item's owner, 2
 * by another), then the table's state after the call. A look-up adds the 7-byte owner-and-end of every item found,
 * in order (a claim, an empty string there). A table of event times adds its event clock last, modulo 2^28, which
 * this agent keeps ({@link EventClocks}). On a Redis Cluster, an item whose bucket moved to one the call does not declare makes it reply {@code
 * {'', level, split, claims, 'stale'}}, having written nothing.
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
    /** Where {@code claims.lua}'s arguments hold what the items make ({@link #args}). */
    static final CallForm FORM =
            new CallForm(FingerprintTable.Records.ITEM_BYTES, FingerprintTable.Records.FIELD_AT, 1, 4, 11);

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
    /** What every call is told alike: the release channel, the base bits, whether on a cluster. */
    private final byte[] channel;

    private final byte[] baseArg;
    private final byte[] clusteredArg;
    private final Counter[] stale;
    private final EventClocks clocks;

    ClaimCalls(
            RedisPort port,
            RedisKeys keys,
            int baseBits,
            TableResizing resizing,
            MeterRegistry registry,
            Housekeeping housekeeping,
            EventClocks clocks) {
        this.port = port;
        this.clocks = clocks;
        this.clustered = keys.clustered();
        this.baseBits = baseBits;
        this.resizing = resizing;
        this.pauses = housekeeping;
        this.gathering = new CallGathering(port, Script.CLAIMS, FORM, registry, housekeeping.ticker());
        this.channel = keys.releaseChannel();
        this.baseArg = RedisKeys.ascii(baseBits);
        this.clusteredArg = new byte[] {(byte) (clustered ? '1' : '0')};
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
        FingerprintTable.State[] view = table.view();
        int[] sending = new int[at.length];
        for (int j = 0; j < at.length; j++) {
            sending[j] = positions[at[j]];
        }
        CallPlan plan = table.plan(items.batch(), items.shard(), items.value(), sending, view, port.shards());
        List<CompletableFuture<int[]>> pending = new ArrayList<>();
        for (CallPlan.Call call : plan.calls()) {
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
            FingerprintTable table, Items items, CallPlan.Call call, FingerprintTable.State view, long nowMillis) {
        CallPlan.Call sendable = clustered ? withImages(table, call, view) : call;
        ScriptCall script = new ScriptCall(
                sendable,
                items.mode().op(),
                tableKeys(table, call.shard()),
                args(table, items.mode(), view, nowMillis, sendable));
        CompletionStage<CallGathering.Reply> sent = items.mode() == Mode.LOOKUP
                ? port.eval(call.shard(), Script.CLAIMS, Op.LOOKUP, script.keys(), script.args())
                        .thenApply(reply -> new CallGathering.Reply(
                                reply.get(0) instanceof byte[] b ? b : new byte[0], reply, true))
                : gathering.submit(script);
        return sent.thenCompose(reply -> {
            List<Object> values = reply.script();
            FingerprintTable.State state = FingerprintTable.State.of(values);
            if (table.eventTime && values.size() > 5 && values.get(5) instanceof Long clock) {
                clocks.advance(table.namespace, FingerprintTable.clockSecond(clock, nowMillis), nowMillis);
            }
            FingerprintTable.Resize due = table.observe(call.shard(), state);
            if (due != null) {
                resizing.resize(table, call.shard(), state, due, nowMillis);
            }
            if (values.size() > 4 && "stale".equals(text(values.get(4)))) {
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
    private CallPlan.Call withImages(FingerprintTable table, CallPlan.Call call, FingerprintTable.State view) {
        long low = 1L << (baseBits + view.level());
        Set<Long> named = new HashSet<>();
        for (long b : call.buckets()) {
            named.add(b);
        }
        CallPlan.Call out = call;
        for (long b : call.buckets()) {
            long image = b + low;
            if (b >= view.split() && b < view.split() + IMAGES_AHEAD && b < low && named.add(image)) {
                out = out.withBucket(image, table.bucketKey(call.shard(), image), FingerprintTable.number(image));
            }
        }
        return out;
    }

    /** The namespace's event clock this agent saw, as {@code claims.lua} reads it; empty for other tables. */
    private byte[] clockArg(FingerprintTable table) {
        long clock = table.eventTime ? clocks.clock(table.namespace) : Batch.NO_EVENT_TIME;
        return clock == Batch.NO_EVENT_TIME
                ? new byte[0]
                : RedisKeys.ascii(Math.floorMod(clock, FingerprintTable.Records.END_RANGE));
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
     * Reads a table's state on a shard (a look-up of no item), and splits or merges buckets if it is due: tests
     * wait with it for a table to settle.
     */
    CompletionStage<FingerprintTable.State> refresh(FingerprintTable table, int shard, long nowMillis) {
        CallPlan.Call none = new CallPlan.Call(shard, new long[0], new byte[0][], new byte[0], new byte[0], new int[0]);
        byte[][] args = args(table, Mode.LOOKUP, FingerprintTable.State.EMPTY, nowMillis, none);
        return port.eval(shard, Script.CLAIMS, Op.LOOKUP, tableKeys(table, shard), args)
                .thenApply(reply -> {
                    FingerprintTable.State state = FingerprintTable.State.of(reply);
                    resizing.observed(table, shard, state, nowMillis);
                    return state;
                });
    }

    /**
     * The keys after the call's buckets: {@code KEYS[1 .. m]} are the buckets, in the order of their {@code
     * buckets} (each item names its bucket by that index); {@code KEYS[m + 1]} is the table's state, a hash of
     * {@code level}, {@code split} (the linear-hashing pointer) and {@code claims} (records held); {@code
     * KEYS[m + 2]} the shard's set of tables, which the sweep walks. The guard's key follows ({@link
     * dev.dedup.agent.store.redis.topology.GuardedPort}).
     */
    private static byte[][] tableKeys(FingerprintTable table, int shard) {
        return new byte[][] {table.stateKeys[shard], table.setKeys[shard]};
    }

    /**
     * {@code ARGV}, in order (the guard's expected record follows):
     *
     * <ol>
     *   <li>{@code 'c'} claim, {@code 'r'} release, {@code 'k'} look up (read only: what the shard holds of
     *       each id);
     *   <li>the items, {@value FingerprintTable.Records#ITEM_BYTES} bytes each ({@link
     *       FingerprintTable.Records#item});
     *   <li>now: whole seconds modulo 2^28;
     *   <li>{@code "<level> <split>"}: the state the agent addressed the buckets by;
     *   <li>per key, the bucket it is: u32 big-endian;
     *   <li>what ends mean ({@link FingerprintTable#modeArg}): {@code '1'} when the table's window slides (a
     *       repeat renews the claim's end), {@code 'e'} when they count on the event clock in the table's state,
     *       which claims move on to their newest event second (never past now), and before which a claim's own
     *       end is late: answered by what its bucket holds, and claimed for a window from the clock;
     *   <li>the channel on which released fields are published;
     *   <li>the table's base bits: it has 2^base buckets at level 0;
     *   <li>the table's name, added to the set of tables when the table gains its first record;
     *   <li>{@code '1'} on a Redis Cluster, where a call may touch only the keys it declares: an item whose
     *       bucket moved to one the call does not declare makes it reply {@code 'stale'} without writing;
     *   <li>what every bucket key of the table starts with; the bucket's number follows in 4 bytes;
     *   <li>{@code '1'} when no bucket and field come twice among the items ({@link CallForm#distinct}): a
     *       record the call writes is then never looked for again by it;
     *   <li>the table's window in whole seconds, rounded up: a claim's end less this is its event second, or
     *       earlier; a table of event times keeps records until its clock is this far past their end, and an item
     *       there is a copy of a kept record that ends after its event second;
     *   <li>in a table of event times, the namespace's event clock as this agent last saw it on any shard,
     *       modulo 2^28 (empty when it saw none): the shard's own moves to it if it is later, so that a shard
     *       whose claims are few keeps the namespace's time.
     * </ol>
     */
    private byte[][] args(
            FingerprintTable table, Mode mode, FingerprintTable.State view, long nowMillis, CallPlan.Call call) {
        return FORM.fill(
                new byte[][] {
                    mode.arg(),
                    null,
                    FingerprintTable.Records.now(nowMillis),
                    view.view().getBytes(StandardCharsets.US_ASCII),
                    null,
                    table.modeArg(),
                    channel,
                    baseArg,
                    table.nameArg,
                    clusteredArg,
                    table.bucketHeads[call.shard()],
                    null,
                    table.windowSecondsArg,
                    clockArg(table)
                },
                call);
    }
}
