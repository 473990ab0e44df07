package dev.dedup.agent.store.redis.layout;

import dev.dedup.agent.store.ClaimPolicy;
import dev.dedup.agent.store.EventClocks;
import dev.dedup.agent.store.redis.access.Housekeeping;
import dev.dedup.agent.store.redis.access.RedisKeys;
import dev.dedup.agent.store.redis.access.RedisPort;
import dev.dedup.agent.store.redis.access.RedisPort.Script.Mode;
import dev.dedup.agent.store.redis.topology.Routing;
import dev.dedup.codec.Batch;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BiFunction;

/**
 * The fingerprint layout: claims of namespaces not filed by event time, in tables that size themselves.
 *
 * <p>Every window (and window mode) has its own <b>table</b> on every shard, so that the claims of one bucket end
 * in the order they were written. Claims whose items carry an event time go to a table of their namespace's,
 * whose state keeps the namespace's event clock on that shard: their ends count on it ({@link EventClocks}), and
 * the clock moves with the event times claimed, so a job that falls behind does not see its claims end under it. An id's route picks its shard (jump hash of its high half) and, by its low
 * bits, its bucket in that shard's table ({@link FingerprintTable.State}). A bucket is a Redis string of 16-byte
 * records ({@code records.lua}): a claim reads its bucket whole and writes its record into the next free slot, or writes
 * the bucket again without the claims that have ended at its front and with room to grow. A table grows by
 * linear hashing: whenever it holds more than {@value FingerprintTable#SPLIT_ABOVE} records a bucket on average, the
 * agent that sees it splits the next buckets in turn ({@code table.lua}), and it merges them back below {@value
 * FingerprintTable#MERGE_BELOW}. So a bucket holds about the same whatever the volume, and so does what a claim costs the shard.
 *
 * <p>Agents address buckets by the state they last saw; {@code claims.lua} checks it and, when a split or merge
 * of another agent's has moved an item's bucket, finds the bucket by name on a standalone shard; on a Redis
 * Cluster, where a call may touch only the keys it declared, it answers so without writing, and the call is
 * addressed anew.
 * A call declares every key it touches, so it is safe on a Redis Cluster while a slot migrates.
 *
 * <p>A record holds the top 56 bits of the id's key, 16 bits of its route (what splits go by: a table splits up
 * to 2^16 times its base), the owner's 28-bit tag and the second its claim ends, modulo 2^28 (8.5 years: no key
 * needs a TTL for an old end to be read right). An unclaimed id is taken for a claimed one with probability about
 * {@code records in its bucket / 2^56} (10^-15 at 64); two owners of one id share a tag with probability
 * 2^-28, which answers a duplicate {@code retry} (processed twice, never dropped).
 *
 * <p>Each call is told which shard list places the items ({@link Routing}). Besides claims and releases, a
 * look-up reads what a list holds of ids without writing ({@link #look}), and a claim can copy what was found
 * there, owner and end ({@link #claim(Routing, Batch, ClaimPolicy, long, Held)}): how claims are carried from one
 * list to another.
 *
 * <p>This class is the layout's face: which table a batch goes to, and on which shard each item is.
 * The rest is one idea a class, each with its script: {@link FingerprintTable}, one table's keys, the states last
 * seen and its records and items byte by byte ({@code records.lua}); {@link ClaimCalls},
 * how a batch's items become {@code claims.lua} calls and are addressed anew when buckets move; {@link
 * TableResizing}, when and how a table splits or merges ({@code table.lua}); {@link RedisSweeper}, the sweep of
 * ended claims ({@code sweep.lua}), which reports what it finds through {@link #observed}.
 */
public final class FingerprintTables {

    /** Bytes of an id's field: what the release channel carries per released id. */
    public static final int FIELD_BYTES = FingerprintTable.Records.FIELD_BYTES;
    /**
     * Base buckets of a table (2^10) on each standalone shard, or over all the groups of a Redis Cluster: what a
     * table starts from, and what 16 route bits can split 65,536 times.
     */
    static final int BASE_BITS = 10;

    private final RedisPort port;
    private final RedisKeys keys;
    private final MeterRegistry registry;
    /** log2 of a table's base buckets on one shard (a cluster group). */
    private final int baseBits;

    private final Map<String, FingerprintTable> tables = new ConcurrentHashMap<>();
    private final TableResizing resizing;
    private final ClaimCalls calls;

    /**
     * {@code housekeeping}: its ticker for how long gathered calls wait, its thread for the calls addressed anew
     * after another agent moved their buckets.
     */
    public FingerprintTables(
            RedisPort port, RedisKeys keys, MeterRegistry registry, Housekeeping housekeeping, EventClocks clocks) {
        this.port = port;
        this.keys = keys;
        this.registry = registry;
        int perShard = keys.clustered() ? Integer.numberOfTrailingZeros(port.shards()) : 0;
        this.baseBits = Math.max(0, BASE_BITS - perShard);
        this.resizing = new TableResizing(port, baseBits, registry);
        this.calls = new ClaimCalls(port, keys, baseBits, resizing, registry, housekeeping, clocks);
    }

    int baseBits() {
        return baseBits;
    }

    FingerprintTable table(String name) {
        return tables.computeIfAbsent(name, n -> new FingerprintTable(n, port.shards(), keys, baseBits, registry));
    }

    /** Every table this agent has used or found on a shard. */
    List<FingerprintTable> tables() {
        return List.copyOf(tables.values());
    }

    /** Claims a batch's items, each in the bucket of its table on the shard {@code where} places it. */
    public CompletionStage<byte[]> claim(Routing where, Batch batch, ClaimPolicy policy, long nowMillis) {
        return claim(where, batch, policy, nowMillis, Held.NONE);
    }

    /**
     * Claims a batch's items as {@link #claim(Routing, Batch, ClaimPolicy, long)} does, except those {@code copied}
     * found held elsewhere: each of them is written with the owner and end it was found with (its end renewed when
     * the window slides), so that a claim copied from another shard keeps its owner.
     */
    public CompletionStage<byte[]> claim(Routing where, Batch batch, ClaimPolicy policy, long nowMillis, Held copied) {
        long[] value = values(batch, policy, nowMillis);
        for (int j = 0; j < copied.positions().length; j++) {
            if (copied.answers()[j] != 0) {
                int i = copied.positions()[j];
                long held = copied.values()[j];
                value[i] =
                        policy.sliding() ? (held & ~(FingerprintTable.Records.END_RANGE - 1)) | endOf(value[i]) : held;
            }
        }
        ClaimCalls.Items items = new ClaimCalls.Items(batch, shards(where, batch), value, Mode.CLAIM);
        return inTables(
                batch, policy, allOf(batch.size()), (table, positions) -> send(table, items, positions, nowMillis));
    }

    /** Releases a batch's items held by their owners; answers 1 per item released, 0 per item not held by it. */
    public CompletionStage<byte[]> release(Routing where, Batch batch, ClaimPolicy policy, long nowMillis) {
        return release(where, batch, policy, allOf(batch.size()), nowMillis);
    }

    /** Releases the items at {@code positions} only; answers in the order of {@code positions}. */
    public CompletionStage<byte[]> release(
            Routing where, Batch batch, ClaimPolicy policy, int[] positions, long nowMillis) {
        ClaimCalls.Items items = new ClaimCalls.Items(batch, shards(where, batch), tags(batch), Mode.RELEASE);
        return inTables(batch, policy, positions, (table, in) -> send(table, items, in, nowMillis));
    }

    /**
     * Reads, without writing, what the shards {@code where} places them on hold of the items at {@code positions}:
     * per position 0 (no claim), 1 (a claim of the item's owner) or 2 (another owner's), and the owner and end of
     * every claim found.
     */
    public CompletionStage<Held> look(Routing where, Batch batch, ClaimPolicy policy, int[] positions, long nowMillis) {
        ClaimCalls.Items items = new ClaimCalls.Items(batch, shards(where, batch), tags(batch), Mode.LOOKUP);
        long[] values = new long[positions.length];
        return inTables(
                        batch,
                        policy,
                        positions,
                        (table, in) -> calls.send(table, items, in, nowMillis).thenApply(found -> {
                            int[] at = indexesIn(positions, in);
                            for (int j = 0; j < in.length; j++) {
                                values[at[j]] = found.values()[j];
                            }
                            return found.answers();
                        }))
                .thenApply(answers -> new Held(positions, answers, values));
    }

    /** What {@link #look} found of a batch's items at {@code positions}: an answer and an owner and end each. */
    public record Held(int[] positions, byte[] answers, long[] values) {

        /** Nothing found: no item is copied. */
        public static final Held NONE = new Held(new int[0], new byte[0], new long[0]);
    }

    /** What places item {@code i} of a batch among the shards of a list ({@link Routing#shard}). */
    public static long placement(Batch batch, int i) {
        return FingerprintTable.Records.shardKey(batch.route(i));
    }

    private static int[] shards(Routing where, Batch batch) {
        int[] shard = new int[batch.size()];
        for (int i = 0; i < shard.length; i++) {
            shard[i] = where.shard(placement(batch, i));
        }
        return shard;
    }

    /**
     * Per item, the owner's tag with the second its claim ends (modulo 2^28): what its record carries. An item with
     * an event time ends a window after it (on its namespace's event clock), one without a window after now.
     */
    private static long[] values(Batch batch, ClaimPolicy policy, long nowMillis) {
        long end = Math.floorMod(policy.endSecond(Batch.NO_EVENT_TIME, nowMillis), FingerprintTable.Records.END_RANGE);
        long[] value = new long[batch.size()];
        boolean eventTimes = batch.hasEventTimes();
        for (int i = 0; i < value.length; i++) {
            long itemEnd = end;
            if (eventTimes && batch.eventSecond(i) != Batch.NO_EVENT_TIME) {
                itemEnd = Math.floorMod(
                        policy.endSecond(batch.eventSecond(i), nowMillis), FingerprintTable.Records.END_RANGE);
            }
            value[i] = FingerprintTable.Records.ownerAndEnd(FingerprintTable.Records.ownerTag(batch.owner(i)), itemEnd);
        }
        return value;
    }

    /** Per item, the owner's tag alone: what a release or a look-up compares. */
    private static long[] tags(Batch batch) {
        long[] value = new long[batch.size()];
        for (int i = 0; i < value.length; i++) {
            value[i] = FingerprintTable.Records.ownerAndEnd(FingerprintTable.Records.ownerTag(batch.owner(i)), 0);
        }
        return value;
    }

    private static long endOf(long ownerAndEnd) {
        return ownerAndEnd & (FingerprintTable.Records.END_RANGE - 1);
    }

    /**
     * Sends the items at {@code positions} to their tables with {@code send} (a table and the positions in it,
     * answering in their order): all to the policy's table, or, when some carry an event time, those to their
     * namespace's table of event times and the rest to the policy's, both at once. Completes with the answers in
     * the order of {@code positions}.
     */
    private CompletionStage<byte[]> inTables(
            Batch batch,
            ClaimPolicy policy,
            int[] positions,
            BiFunction<FingerprintTable, int[], CompletionStage<byte[]>> send) {
        FingerprintTable byWindow = table(FingerprintTable.nameOf(policy));
        if (!batch.hasEventTimes()) {
            return send.apply(byWindow, positions);
        }
        int timedCount = 0;
        for (int i : positions) {
            if (batch.eventSecond(i) != Batch.NO_EVENT_TIME) {
                timedCount++;
            }
        }
        FingerprintTable byEventTime = table(FingerprintTable.eventTimeNameOf(policy, batch.namespace()));
        if (timedCount == positions.length) {
            return send.apply(byEventTime, positions);
        }
        int[] timed = new int[timedCount];
        int[] untimed = new int[positions.length - timedCount];
        int t = 0;
        int u = 0;
        for (int i : positions) {
            if (batch.eventSecond(i) != Batch.NO_EVENT_TIME) {
                timed[t++] = i;
            } else {
                untimed[u++] = i;
            }
        }
        byte[] answers = new byte[positions.length];
        CompletionStage<Void> first =
                send.apply(byEventTime, timed).thenAccept(a -> place(a, positions, timed, answers));
        CompletionStage<Void> second =
                send.apply(byWindow, untimed).thenAccept(a -> place(a, positions, untimed, answers));
        return first.thenCombine(second, (x, y) -> answers);
    }

    /** Copies the answers of the positions {@code in} (a subset of {@code positions}) to their places. */
    private static void place(byte[] answersIn, int[] positions, int[] in, byte[] answers) {
        int[] at = indexesIn(positions, in);
        for (int j = 0; j < in.length; j++) {
            answers[at[j]] = answersIn[j];
        }
    }

    /** Where each of {@code in} (a subsequence of {@code positions}) stands in {@code positions}. */
    private static int[] indexesIn(int[] positions, int[] in) {
        int[] at = new int[in.length];
        int p = 0;
        for (int j = 0; j < in.length; j++) {
            while (positions[p] != in[j]) {
                p++;
            }
            at[j] = p;
        }
        return at;
    }

    private static int[] allOf(int n) {
        int[] all = new int[n];
        for (int i = 0; i < n; i++) {
            all[i] = i;
        }
        return all;
    }

    /** Sends the items at {@code positions}; completes with their answers in the order of {@code positions}. */
    private CompletionStage<byte[]> send(
            FingerprintTable table, ClaimCalls.Items items, int[] positions, long nowMillis) {
        return calls.send(table, items, positions, nowMillis).thenApply(ClaimCalls.Found::answers);
    }

    /**
     * Reads a table's state on a shard, and splits or merges buckets if it is due: tests wait with it for a table
     * to settle.
     */
    CompletionStage<FingerprintTable.State> refresh(FingerprintTable table, int shard, long nowMillis) {
        return calls.refresh(table, shard, nowMillis);
    }

    /** Records what a shard said of a table (the sweep's findings), and splits or merges buckets when it is due. */
    void observed(FingerprintTable table, int shard, FingerprintTable.State state, long nowMillis) {
        resizing.observed(table, shard, state, nowMillis);
    }

    /** The layout's part of {@code /v1/stats}: per shard, every table this agent knows. */
    public void stats(List<Map<String, Object>> shards) {
        for (int s = 0; s < shards.size(); s++) {
            Map<String, Object> perTable = new LinkedHashMap<>();
            for (FingerprintTable table : tables()) {
                FingerprintTable.State state = table.state(s);
                Map<String, Object> t = new LinkedHashMap<>();
                long buckets = state.buckets(baseBits);
                t.put("level", state.level());
                t.put("split", state.split());
                t.put("buckets", buckets);
                t.put("claims", state.claims());
                t.put("claims_per_bucket", Math.round(state.claims() * 10.0 / buckets) / 10.0);
                perTable.put(table.name, t);
            }
            shards.get(s).put("tables", perTable);
        }
    }
}
