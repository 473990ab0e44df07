package dev.dedup.agent.store.redis.layout;

import dev.dedup.agent.metrics.MetricNames;
import dev.dedup.agent.store.ClaimPolicy;
import dev.dedup.agent.store.FailureKind;
import dev.dedup.agent.store.StoreUnavailableException;
import dev.dedup.agent.store.redis.access.Mode;
import dev.dedup.agent.store.redis.access.RedisKeys;
import dev.dedup.agent.store.redis.access.RedisPort;
import dev.dedup.agent.store.redis.access.RedisScript;
import dev.dedup.agent.store.redis.access.ShardCounters;
import dev.dedup.agent.store.redis.gather.CallGathering;
import dev.dedup.agent.store.redis.gather.ShardCalls;
import dev.dedup.agent.store.redis.topology.Routing;
import dev.dedup.codec.Batch;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.lang.System.Logger.Level;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.function.Function;

/**
 * The fingerprint layout: claims of namespaces not filed by event time, in tables that size themselves.
 *
 * <p>Every window (and window mode) has its own <b>table</b> on every shard, so that the claims of one bucket end
 * in the order they were written. An id's route picks its shard (jump hash of its high half) and, by its low
 * bits, its bucket in that shard's table ({@link TableState}). A bucket is a Redis string of 16-byte records
 * ({@code records.lua}): a claim reads its bucket whole and writes its record into the next free slot, or writes
 * the bucket again without the claims that have ended at its front and with room to grow. A table grows by
 * linear hashing: whenever it holds more than {@value #SPLIT_ABOVE} records a bucket on average, the agent that
 * sees it splits the next buckets in turn ({@code table.lua}), and it merges them back below {@value
 * #MERGE_BELOW}. So a bucket holds about the same whatever the volume, and so does what a claim costs the shard.
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
 */
public final class FingerprintTables {

    private static final System.Logger LOG = System.getLogger(FingerprintTables.class.getName());

    public static final int FIELD_BYTES = 7;
    /** u16 key index, u16 low bits of the route, the 16-byte record. */
    static final int ITEM_BYTES = 20;
    /** Route bits a record keeps above the base: what a table can split by. */
    static final int ROUTE_BITS = 16;

    static final int OWNER_TAG_BITS = 28;
    /** Ends of claims are kept modulo this many seconds. */
    static final long END_RANGE = 1L << 28;
    /**
     * Base buckets of a table over all shards (2^10): what a table starts from, and what 16 route bits can
     * split 65,536 times.
     */
    static final int BASE_BITS = 10;
    /**
     * Mean records a bucket may hold before the table splits one more: a claim reads its whole bucket (about 1.7 ns
     * a byte in Redis's Lua), and a Redis key costs about 80 bytes, so this is where both stay small.
     */
    static final int SPLIT_ABOVE = 48;
    /** Mean records a bucket holds below which the table merges its last split back. */
    static final int MERGE_BELOW = 16;
    /** Buckets split or merged by one call. */
    static final int PAIRS_PER_CALL = 8;
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

    private final RedisPort port;
    private final Routing routing;
    private final RedisKeys keys;
    private final MeterRegistry registry;
    private final CallGathering gathering;
    /** log2 of a table's base buckets on one shard (a cluster group). */
    private final int baseBits;

    private final byte[] channel;
    private final byte[] baseArg;
    private final Map<String, Table> tables = new ConcurrentHashMap<>();
    private final Counter[] splits;
    private final Counter[] merges;
    private final Counter[] stale;

    public FingerprintTables(RedisPort port, Routing routing, RedisKeys keys, MeterRegistry registry) {
        this.port = port;
        this.routing = routing;
        this.keys = keys;
        this.registry = registry;
        this.gathering = new CallGathering(port, RedisScript.CLAIMS, ITEM_BYTES, registry);
        int perShard = keys.clustered() ? Integer.numberOfTrailingZeros(port.shards()) : 0;
        this.baseBits = Math.max(0, BASE_BITS - perShard);
        this.channel = keys.releaseChannel();
        this.baseArg = RedisKeys.ascii(baseBits);
        String resized = "Buckets a fingerprint table split or merged as the claims it holds grew or shrank";
        this.splits = ShardCounters.of(registry, port, MetricNames.REDIS_TABLE_RESIZES, resized, "op", "split");
        this.merges = ShardCounters.of(registry, port, MetricNames.REDIS_TABLE_RESIZES, resized, "op", "merge");
        this.stale = ShardCounters.of(
                registry,
                port,
                MetricNames.REDIS_STALE_CALLS,
                "Claim calls addressed anew because other agents split or merged their buckets meanwhile");
    }

    int baseBits() {
        return baseBits;
    }

    /** One window's table: its name in Redis and, per shard, the state this agent last saw. */
    final class Table {
        final String name;
        final boolean sliding;
        final long windowMillis;
        final byte[] nameArg;
        final byte[][] stateKeys;
        final byte[][] setKeys;
        final byte[][] bucketHeads;
        final AtomicReferenceArray<TableState> states;
        final AtomicBoolean[] resizing;

        Table(String name) {
            this.name = name;
            this.sliding = name.charAt(0) == 's';
            this.windowMillis = Long.parseLong(name.substring(1));
            this.nameArg = name.getBytes(StandardCharsets.US_ASCII);
            int shards = port.shards();
            this.stateKeys = new byte[shards][];
            this.setKeys = new byte[shards][];
            this.bucketHeads = new byte[shards][];
            this.states = new AtomicReferenceArray<>(shards);
            this.resizing = new AtomicBoolean[shards];
            for (int s = 0; s < shards; s++) {
                stateKeys[s] = keys.tableState(s, name);
                setKeys[s] = keys.tables(s);
                bucketHeads[s] = keys.bucketHead(s, name);
                states.set(s, TableState.EMPTY);
                resizing[s] = new AtomicBoolean();
                int shard = s;
                Gauge.builder(
                                MetricNames.REDIS_TABLE_BUCKETS,
                                () -> states.get(shard).buckets(baseBits))
                        .tags(MetricNames.TAG_SHARD, String.valueOf(s), "table", name)
                        .description("Buckets of a fingerprint table, as this agent last saw it")
                        .register(registry);
                Gauge.builder(
                                MetricNames.REDIS_TABLE_CLAIMS,
                                () -> states.get(shard).claims())
                        .tags(MetricNames.TAG_SHARD, String.valueOf(s), "table", name)
                        .description("Records a fingerprint table holds, as this agent last saw it")
                        .register(registry);
            }
        }

        byte[] bucketKey(int shard, long bucket) {
            byte[] head = bucketHeads[shard];
            byte[] key = java.util.Arrays.copyOf(head, head.length + 4);
            for (int i = 0; i < 4; i++) {
                key[head.length + i] = (byte) (bucket >>> (24 - 8 * i));
            }
            return key;
        }
    }

    /** The table of claims kept under {@code policy}: {@code f<window ms>}, or {@code s<window ms>} when it slides. */
    static String tableName(ClaimPolicy policy) {
        return (policy.sliding() ? "s" : "f") + policy.windowMillis();
    }

    Table table(String name) {
        return tables.computeIfAbsent(name, Table::new);
    }

    /** Every table this agent has used or found on a shard. */
    List<Table> tables() {
        return List.copyOf(tables.values());
    }

    public CompletionStage<byte[]> claim(Batch batch, ClaimPolicy policy, long nowMillis) {
        long end = Math.floorMod(policy.endSecond(Batch.NO_EVENT_TIME, nowMillis), END_RANGE);
        return run(batch, table(tableName(policy)), Mode.CLAIM, end, nowMillis);
    }

    public CompletionStage<byte[]> release(Batch batch, ClaimPolicy policy, long nowMillis) {
        return run(batch, table(tableName(policy)), Mode.RELEASE, 0, nowMillis);
    }

    /** The items of a batch in one call sequence: their shards and the owner-and-end each record carries. */
    private record Items(Batch batch, int[] shard, long[] value, Mode mode) {}

    private CompletionStage<byte[]> run(Batch batch, Table table, Mode mode, long end, long nowMillis) {
        int n = batch.size();
        int[] shard = new int[n];
        long[] value = new long[n];
        boolean moving = routing.inTransition() && routing.cutOver();
        int moved = 0;
        for (int i = 0; i < n; i++) {
            long key = shardKey(batch.route(i));
            shard[i] = routing.shard(key);
            value[i] = ((long) ownerTag(batch.owner(i)) << OWNER_TAG_BITS) | end;
            if (moving && routing.moves(key)) {
                moved++;
            }
        }
        Items items = new Items(batch, shard, value, mode);
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
    private CompletionStage<byte[]> afterLookup(Table table, Items items, int moved, long end, long nowMillis) {
        Batch batch = items.batch();
        int[] positions = new int[moved];
        int[] previous = new int[moved];
        int m = 0;
        for (int i = 0; i < batch.size(); i++) {
            long key = shardKey(batch.route(i));
            if (routing.moves(key)) {
                positions[m] = i;
                previous[m] = routing.source(key);
                m++;
            }
        }
        Items lookups = new Items(batch, remap(previous, positions, batch.size()), items.value(), Mode.LOOKUP);
        Mode mode = items.mode();
        Items inPrevious =
                mode == Mode.RELEASE ? new Items(batch, lookups.shard(), items.value(), Mode.RELEASE) : lookups;
        return sendWithValues(table, inPrevious, positions, nowMillis, 1).thenCompose(found -> {
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
                    values[positions[j]] = table.sliding ? (held & ~(END_RANGE - 1)) | end : held;
                }
            }
            return send(table, new Items(batch, items.shard(), values, mode), allOf(batch.size()), nowMillis)
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

    /** Answers per position, and for a look-up the owner-and-end of every claim found (0 where none). */
    private record Found(byte[] answers, long[] values) {}

    /** Sends the items at {@code positions}; completes with their answers in the order of {@code positions}. */
    private CompletionStage<byte[]> send(Table table, Items items, int[] positions, long nowMillis) {
        return sendWithValues(table, items, positions, nowMillis, 1).thenApply(Found::answers);
    }

    /**
     * Sends the items at {@code positions}, addressed by the states last seen; items whose buckets another agent
     * moved meanwhile are addressed anew and sent again ({@code attempt} counts how often).
     */
    private CompletionStage<Found> sendWithValues(
            Table table, Items items, int[] positions, long nowMillis, int attempt) {
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
                            : sendWithValues(table, items, sub, nowMillis, attempt + 1))
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
            Table table, Items items, ShardCalls.Call call, TableState view, long nowMillis, int attempt) {
        long nowSecond = Math.floorDiv(nowMillis, 1000L);
        byte[] now = RedisKeys.ascii(Math.floorMod(nowSecond, END_RANGE));
        byte[] viewArg = view.view().getBytes(StandardCharsets.US_ASCII);
        byte[] sliding = {(byte) (table.sliding ? '1' : '0')};
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
                ShardCalls.distinct(c.items(), ITEM_BYTES, 4) ? ONE : ZERO
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
            observed(table, call.shard(), TableState.of(script), nowMillis);
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
    private ShardCalls.Call withImages(Table table, ShardCalls.Call call, TableState view) {
        long low = 1L << (baseBits + view.level());
        java.util.Set<Long> named = new java.util.HashSet<>();
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
        long[] buckets = java.util.Arrays.copyOf(call.buckets(), n + images.size());
        byte[][] k = java.util.Arrays.copyOf(call.keys(), n + images.size());
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
    private ShardCalls.Packing packing(Table table, Items items, int[] positions, TableState[] view) {
        Batch batch = items.batch();
        return new ShardCalls.Packing() {
            @Override
            public long bucket(int j) {
                int i = positions[j];
                int shard = items.shard()[i];
                return ((long) shard << 32) | view[shard].bucket(baseBits, lowRoute(batch.route(i)));
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
                return ITEM_BYTES;
            }

            @Override
            public void write(byte[] a, int at, int keyIndex, int j) {
                int i = positions[j];
                item(a, at, keyIndex, batch.key(i), lowRoute(batch.route(i)), baseBits, items.value()[i]);
            }
        };
    }

    /** What places an id among shards: the high half of its route. */
    static long shardKey(long route) {
        return route >>> 32;
    }

    /** What places an id in its shard's table: the low half of its route. */
    static long lowRoute(long route) {
        return route & 0xffff_ffffL;
    }

    static int ownerTag(long ownerFingerprint) {
        int tag = (int) (ownerFingerprint & ((1 << OWNER_TAG_BITS) - 1));
        return tag == 0 ? 1 : tag;
    }

    /**
     * Writes one item at {@code at}: u16 key index (1-based), the low 16 bits of the route, then the record: the
     * 7-byte field, the route's 16 bits above the base, the 7-byte owner tag and end.
     */
    static void item(byte[] a, int at, int keyIndex, long key, long route, int baseBits, long value) {
        a[at] = (byte) (keyIndex >>> 8);
        a[at + 1] = (byte) keyIndex;
        a[at + 2] = (byte) (route >>> 8);
        a[at + 3] = (byte) route;
        for (int i = 0; i < FIELD_BYTES; i++) {
            a[at + 4 + i] = (byte) (key >>> (56 - 8 * i));
        }
        long high = route >>> baseBits;
        a[at + 11] = (byte) (high >>> 8);
        a[at + 12] = (byte) high;
        for (int i = 0; i < 7; i++) {
            a[at + 13 + i] = (byte) (value >>> (48 - 8 * i));
        }
    }

    /**
     * Reads a table's state on a shard (a look-up of no item), and splits or merges buckets if it is due: tests
     * wait with it for a table to settle.
     */
    CompletionStage<TableState> refresh(Table table, int shard, long nowMillis) {
        byte[][] k = {table.stateKeys[shard], table.setKeys[shard]};
        byte[][] args = {
            Mode.LOOKUP.arg(),
            new byte[0],
            RedisKeys.ascii(Math.floorMod(Math.floorDiv(nowMillis, 1000L), END_RANGE)),
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
            observed(table, shard, state, nowMillis);
            return state;
        });
    }

    /** Records what a shard said of a table, and splits or merges buckets when it has outgrown its size. */
    void observed(Table table, int shard, TableState state, long nowMillis) {
        table.states.set(shard, state);
        long buckets = state.buckets(baseBits);
        boolean grow = state.claims() > SPLIT_ABOVE * buckets && state.level() < ROUTE_BITS;
        boolean shrink = state.claims() < MERGE_BELOW * buckets && buckets > (1L << baseBits);
        if ((grow || shrink) && table.resizing[shard].compareAndSet(false, true)) {
            resize(table, shard, state, grow, nowMillis);
        }
    }

    private void resize(Table table, int shard, TableState state, boolean grow, long nowMillis) {
        long buckets = state.buckets(baseBits);
        List<byte[]> k = new ArrayList<>();
        k.add(table.stateKeys[shard]);
        int level = state.level();
        long split = state.split();
        long wanted = grow
                ? (state.claims() + SPLIT_ABOVE - 1) / SPLIT_ABOVE - buckets
                : buckets - Math.max(1L << baseBits, state.claims() / ((SPLIT_ABOVE + MERGE_BELOW) / 2));
        long pairs = Math.max(1, Math.min(PAIRS_PER_CALL, wanted));
        for (long j = 0; j < pairs; j++) {
            if (grow) {
                long low = 1L << (baseBits + level);
                if (split >= low) {
                    break; // the rest of this level's splits go in the next call
                }
                k.add(table.bucketKey(shard, split));
                k.add(table.bucketKey(shard, split + low));
                split++;
            } else {
                if (split == 0) {
                    if (level == 0) {
                        break;
                    }
                    level--;
                    split = 1L << (baseBits + level);
                }
                split--;
                k.add(table.bucketKey(shard, split));
                k.add(table.bucketKey(shard, split + (1L << (baseBits + level))));
            }
        }
        int done = (k.size() - 1) / 2;
        byte[][] args = {
            {(byte) (grow ? 's' : 'm')},
            state.view().getBytes(StandardCharsets.US_ASCII),
            RedisKeys.ascii(Math.floorMod(Math.floorDiv(nowMillis, 1000L), END_RANGE)),
            baseArg,
            {(byte) (table.sliding ? '1' : '0')}
        };
        port.eval(shard, RedisScript.TABLE, Mode.TABLE, k.toArray(byte[][]::new), args)
                .whenComplete((reply, failure) -> {
                    table.resizing[shard].set(false);
                    if (failure != null) {
                        LOG.log(
                                Level.DEBUG,
                                "redis: resizing table " + table.name + " on " + port.name(shard) + " failed: "
                                        + failure);
                        return;
                    }
                    TableState after =
                            new TableState(((Long) reply.get(0)).intValue(), (Long) reply.get(1), (Long) reply.get(2));
                    if (after.buckets(baseBits) != buckets) {
                        (grow ? splits : merges)[shard].increment(done);
                    }
                    observed(table, shard, after, nowMillis);
                });
    }

    /** The layout's part of {@code /v1/stats}: per shard, every table this agent knows. */
    public void stats(List<Map<String, Object>> shards) {
        for (int s = 0; s < shards.size(); s++) {
            Map<String, Object> perTable = new LinkedHashMap<>();
            for (Table table : tables()) {
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
