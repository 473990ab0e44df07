package dev.dedup.agent.store.redis.layout;

import dev.dedup.agent.store.ClaimPolicy;
import dev.dedup.agent.store.redis.access.Mode;
import dev.dedup.agent.store.redis.access.RedisKeys;
import dev.dedup.agent.store.redis.access.RedisPort;
import dev.dedup.agent.store.redis.topology.Routing;
import dev.dedup.codec.Batch;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The fingerprint layout: claims of namespaces not filed by event time, in tables that size themselves.
 *
 * <p>Every window (and window mode) has its own <b>table</b> on every shard, so that the claims of one bucket end
 * in the order they were written. An id's route picks its shard (jump hash of its high half) and, by its low
 * bits, its bucket in that shard's table ({@link TableState}). A bucket is a Redis string of 16-byte records
 * ({@code records.lua}): a claim reads its bucket whole and writes its record into the next free slot, or writes
 * the bucket again without the claims that have ended at its front and with room to grow. A table grows by
 * linear hashing: whenever it holds more than {@value TableResizing#SPLIT_ABOVE} records a bucket on average, the
 * agent that sees it splits the next buckets in turn ({@code table.lua}), and it merges them back below {@value
 * TableResizing#MERGE_BELOW}. So a bucket holds about the same whatever the volume, and so does what a claim costs the shard.
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
 * <p>During a declared change of the shard list, after the cut-over, an id whose shard changed is looked up in
 * its previous shard first; a claim found there is copied to the new shard with its owner and end. Nothing is
 * moved otherwise: the previous shards are needed until every claim made before the cut-over has ended.
 *
 * <p>This class is the layout's face: which table a batch goes to, and the look-ups of a change of the shard list.
 * The rest is one idea a class, each with its script: {@link FingerprintRecord}, a record and an item byte by byte
 * ({@code records.lua}); {@link FingerprintTable}, one table's keys and the states last seen; {@link ClaimCalls},
 * how a batch's items become {@code claims.lua} calls and are addressed anew when buckets move; {@link
 * TableResizing}, when and how a table splits or merges ({@code table.lua}); {@link RedisSweeper}, the sweep of
 * ended claims ({@code sweep.lua}), which reports what it finds through {@link #observed}.
 */
public final class FingerprintTables {

    /** Bytes of an id's field: what the release channel carries per released id. */
    public static final int FIELD_BYTES = FingerprintRecord.FIELD_BYTES;
    /**
     * Base buckets of a table (2^10) on each standalone shard, or over all the groups of a Redis Cluster: what a
     * table starts from, and what 16 route bits can split 65,536 times.
     */
    static final int BASE_BITS = 10;

    private final RedisPort port;
    private final Routing routing;
    private final RedisKeys keys;
    private final MeterRegistry registry;
    /** log2 of a table's base buckets on one shard (a cluster group). */
    private final int baseBits;

    private final Map<String, FingerprintTable> tables = new ConcurrentHashMap<>();
    private final TableResizing resizing;
    private final ClaimCalls calls;

    public FingerprintTables(RedisPort port, Routing routing, RedisKeys keys, MeterRegistry registry) {
        this.port = port;
        this.routing = routing;
        this.keys = keys;
        this.registry = registry;
        int perShard = keys.clustered() ? Integer.numberOfTrailingZeros(port.shards()) : 0;
        this.baseBits = Math.max(0, BASE_BITS - perShard);
        this.resizing = new TableResizing(port, baseBits, registry);
        this.calls = new ClaimCalls(port, keys, baseBits, resizing, registry);
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

    public CompletionStage<byte[]> claim(Batch batch, ClaimPolicy policy, long nowMillis) {
        long end = Math.floorMod(policy.endSecond(Batch.NO_EVENT_TIME, nowMillis), FingerprintRecord.END_RANGE);
        return run(batch, table(FingerprintTable.nameOf(policy)), Mode.CLAIM, end, nowMillis);
    }

    public CompletionStage<byte[]> release(Batch batch, ClaimPolicy policy, long nowMillis) {
        return run(batch, table(FingerprintTable.nameOf(policy)), Mode.RELEASE, 0, nowMillis);
    }

    private CompletionStage<byte[]> run(Batch batch, FingerprintTable table, Mode mode, long end, long nowMillis) {
        int n = batch.size();
        int[] shard = new int[n];
        long[] value = new long[n];
        boolean moving = routing.inTransition() && routing.cutOver();
        int moved = 0;
        for (int i = 0; i < n; i++) {
            long key = FingerprintRecord.shardKey(batch.route(i));
            shard[i] = routing.shard(key);
            value[i] = FingerprintRecord.ownerAndEnd(FingerprintRecord.ownerTag(batch.owner(i)), end);
            if (moving && routing.moves(key)) {
                moved++;
            }
        }
        ClaimCalls.Items items = new ClaimCalls.Items(batch, shard, value, mode);
        if (moved == 0) {
            return send(table, items, allOf(n), nowMillis);
        }
        return afterLookup(table, items, moved, end, nowMillis);
    }

    /**
     * After the cut-over of a declared change of the shard list: the items whose shard changed are looked up in
     * their previous shard; a claim found there is the answer, and is copied to the new shard with its owner and
     * end (renewed in a sliding window); a release releases there too.
     */
    private CompletionStage<byte[]> afterLookup(
            FingerprintTable table, ClaimCalls.Items items, int moved, long end, long nowMillis) {
        Batch batch = items.batch();
        int[] positions = new int[moved];
        int[] previous = new int[moved];
        int m = 0;
        for (int i = 0; i < batch.size(); i++) {
            long key = FingerprintRecord.shardKey(batch.route(i));
            if (routing.moves(key)) {
                positions[m] = i;
                previous[m] = routing.source(key);
                m++;
            }
        }
        ClaimCalls.Items lookups =
                new ClaimCalls.Items(batch, remap(previous, positions, batch.size()), items.value(), Mode.LOOKUP);
        Mode mode = items.mode();
        ClaimCalls.Items inPrevious = mode == Mode.RELEASE
                ? new ClaimCalls.Items(batch, lookups.shard(), items.value(), Mode.RELEASE)
                : lookups;
        return calls.send(table, inPrevious, positions, nowMillis).thenCompose(found -> {
            if (mode == Mode.RELEASE) {
                return send(table, items, allOf(batch.size()), nowMillis).thenApply(here -> {
                    for (int j = 0; j < positions.length; j++) {
                        here[positions[j]] |= found.answers()[j];
                    }
                    return here;
                });
            }
            long[] values = items.value().clone();
            for (int j = 0; j < positions.length; j++) {
                if (found.answers()[j] != 0) {
                    long held = found.values()[j];
                    values[positions[j]] = table.sliding ? (held & ~(FingerprintRecord.END_RANGE - 1)) | end : held;
                }
            }
            return send(table, new ClaimCalls.Items(batch, items.shard(), values, mode), allOf(batch.size()), nowMillis)
                    .thenApply(here -> {
                        for (int j = 0; j < positions.length; j++) {
                            if (found.answers()[j] != 0) {
                                here[positions[j]] = found.answers()[j];
                            }
                        }
                        return here;
                    });
        });
    }

    /** {@code shards} (one per position) spread into an array over the whole batch. */
    private static int[] remap(int[] shards, int[] positions, int size) {
        int[] all = new int[size];
        for (int j = 0; j < positions.length; j++) {
            all[positions[j]] = shards[j];
        }
        return all;
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
    CompletionStage<TableState> refresh(FingerprintTable table, int shard, long nowMillis) {
        return calls.refresh(table, shard, nowMillis);
    }

    /** Records what a shard said of a table (the sweep's findings), and splits or merges buckets when it is due. */
    void observed(FingerprintTable table, int shard, TableState state, long nowMillis) {
        resizing.observed(table, shard, state, nowMillis);
    }

    /** The layout's part of {@code /v1/stats}: per shard, every table this agent knows. */
    public void stats(List<Map<String, Object>> shards) {
        for (int s = 0; s < shards.size(); s++) {
            Map<String, Object> perTable = new LinkedHashMap<>();
            for (FingerprintTable table : tables()) {
                TableState state = table.states.get(s);
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
