package dev.dedup.agent.store.redis;

import dev.dedup.agent.config.RedisOptions;
import dev.dedup.agent.config.WindowOptions;
import dev.dedup.agent.store.ClaimPolicy;
import dev.dedup.agent.store.ClaimStore;
import dev.dedup.agent.store.EventClocks;
import dev.dedup.agent.store.FailureKind;
import dev.dedup.agent.store.RangeStore;
import dev.dedup.agent.store.ReleaseFeed;
import dev.dedup.agent.store.ReleaseListener;
import dev.dedup.agent.store.StoreUnavailableException;
import dev.dedup.agent.store.redis.access.Housekeeping;
import dev.dedup.agent.store.redis.access.RedisKeys;
import dev.dedup.agent.store.redis.access.RedisPort;
import dev.dedup.agent.store.redis.access.RedisPort.Script;
import dev.dedup.agent.store.redis.access.connections.LettuceRedis;
import dev.dedup.agent.store.redis.access.health.EvictionPolicy;
import dev.dedup.agent.store.redis.access.health.ShardMemory;
import dev.dedup.agent.store.redis.layout.FingerprintTables;
import dev.dedup.agent.store.redis.layout.NamespaceRecords;
import dev.dedup.agent.store.redis.layout.RedisRanges;
import dev.dedup.agent.store.redis.layout.RedisSweeper;
import dev.dedup.agent.store.redis.layout.TimeBuckets;
import dev.dedup.agent.store.redis.layout.TimedSweeper;
import dev.dedup.agent.store.redis.topology.ShardLists;
import dev.dedup.agent.store.redis.topology.Topology;
import dev.dedup.agent.store.redis.topology.TopologyStart;
import dev.dedup.codec.Batch;
import dev.dedup.codec.RangeRequest;
import dev.dedup.wire.SequenceRange;
import io.micrometer.core.instrument.MeterRegistry;
import java.lang.System.Logger.Level;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * Claims kept in Redis on one or more shards (or the groups of a Redis Cluster; {@link LettuceRedis} talks to them): a
 * namespace filed by event time in {@link TimeBuckets}, every other in {@link FingerprintTables}; each writes a
 * batch with one Lua script call per shard (per {@value dev.dedup.agent.store.redis.gather.CallPlan#MAX_ITEMS_PER_CALL} items), the shards' calls
 * in parallel, through the one {@link RedisPort}.
 *
 * <p>A batch fails as a whole with {@link StoreUnavailableException} when any shard it touches fails;
 * the items the other shards claimed stay claimed by their owners, so the worker's retry of the same
 * batch answers them {@code retry}. Releases are published on one channel, which {@link #subscribe}
 * delivers to this agent's near-cache.
 */
public final class RedisStore implements ClaimStore, RangeStore, ReleaseFeed {

    private static final System.Logger LOG = System.getLogger(RedisStore.class.getName());

    private final RedisOptions options;
    private final WindowOptions windows;
    private final LongSupplier clockMillis;
    private final RedisPort port;
    private final Topology topology;
    private final RedisKeys keys;
    private final FingerprintTables fingerprints;
    /** Each namespace's event clock as the shards' replies last told it. */
    private final EventClocks clocks = new EventClocks();

    private final TimeBuckets times;
    private final NamespaceRecords namespaces;
    /**
     * Namespaces every shard was found to record as this agent keeps them: their batches skip {@link
     * NamespaceRecords#agree}, which would answer at once. One whose check failed is not here, so it is checked again.
     */
    private final Set<String> agreedNamespaces = ConcurrentHashMap.newKeySet();
    /** Claims, releases and ranges: in the one shard list, or in two while a change of it is declared. */
    private final ShardList claims;

    private final RedisSweeper sweeper;
    private final TimedSweeper timedSweeper;
    private final ShardMemory memory;
    /** The clocks, and the one thread of the tier's housekeeping: the topology watch, the sweep, memory readings. */
    private final Housekeeping housekeeping;

    private final ShardLists lists;

    /**
     * Connects to every shard (or fails naming the one that cannot be reached) and loads the scripts, the
     * connections on {@code ioLoops}, the HTTP server's event loops (null: threads of their own); close the store
     * before them. {@code windows} names the namespaces filed by event time, for {@code /v1/stats}. Every clock and
     * the one housekeeping thread of the tier are {@code housekeeping}'s, which the store stops when it is closed
     * or fails to start.
     */
    public RedisStore(
            RedisOptions options,
            WindowOptions windows,
            Housekeeping housekeeping,
            MeterRegistry registry,
            io.netty.channel.EventLoopGroup ioLoops) {
        this.windows = windows;
        this.housekeeping = housekeeping;
        this.clockMillis = housekeeping.clockMillis();
        java.util.concurrent.ScheduledExecutorService scheduler = housekeeping.scheduler();
        List<Script> scripts = List.of(
                Script.CLAIMS,
                Script.TABLE,
                Script.SWEEP,
                Script.TABLES,
                Script.TIMED,
                Script.TIMED_SWEEP,
                Script.RANGES,
                Script.TOPOLOGY);
        if (options.cluster()) {
            this.keys = RedisKeys.clustered(options.keyPrefix(), options.clusterGroups());
            this.lists = ShardLists.single(options.clusterGroups());
        } else {
            this.keys = new RedisKeys(options.keyPrefix());
            this.lists = ShardLists.of(options);
        }
        RedisPort shards;
        try {
            shards = LettuceRedis.connect(options, registry, scripts, ioLoops, housekeeping);
        } catch (RuntimeException e) {
            scheduler.shutdownNow();
            throw e;
        }
        Topology agreed = null;
        try {
            // before anything is written: a refused start leaves the shards as they were
            EvictionPolicy.judge(shards.evictionPolicies(), options.evictionCheck());
            agreed = TopologyStart.agreeOrRefuse(
                    shards, keys, lists, options.adoptEmptyShards(), housekeeping, registry);
            this.topology = agreed;
            this.port = agreed.guarded();
            this.fingerprints = new FingerprintTables(port, keys, registry, housekeeping, clocks);
            this.namespaces = new NamespaceRecords(port, options.keyPrefix());
            Map<String, ClaimPolicy> named = ClaimPolicy.ofNamed(windows);
            namespaces.agreeOrRefuse(named);
            agreedNamespaces.addAll(named.keySet());
            this.times = new TimeBuckets(port, keys, registry, housekeeping.ticker(), clocks);
            RedisRanges ranges = new RedisRanges(port, keys);
            this.claims = lists.changing()
                    ? new ShardListChange(
                            lists,
                            fingerprints,
                            times,
                            ranges,
                            agreed,
                            options.transition().previous().stream()
                                    .map(RedisOptions::redact)
                                    .toList(),
                            options.transition().cutover(),
                            windows.longestMillis(),
                            () -> !windows.eventRates().isEmpty()
                                    || !clocks.all().isEmpty(),
                            clockMillis)
                    : new ShardList(lists.current(), fingerprints, times, ranges);
            this.options = options;
        } catch (RuntimeException e) {
            if (agreed != null) {
                agreed.close();
            }
            shards.close();
            scheduler.shutdownNow();
            throw e;
        }
        this.sweeper = new RedisSweeper(fingerprints, port, keys, clockMillis, scheduler).start();
        this.timedSweeper = new TimedSweeper(times, port, keys, clocks, clockMillis, scheduler, registry).start();
        this.memory = new ShardMemory(port, registry, scheduler);
    }

    @Override
    public String kind() {
        return "redis";
    }

    @Override
    public CompletionStage<byte[]> claim(Batch batch, ClaimPolicy policy) {
        long now = clockMillis.getAsLong();
        return whenAgreed(batch.namespace(), policy, () -> claims.claim(batch, policy, now));
    }

    @Override
    public CompletionStage<byte[]> release(Batch batch, ClaimPolicy policy) {
        long now = clockMillis.getAsLong();
        return whenAgreed(batch.namespace(), policy, () -> claims.release(batch, policy, now));
    }

    /** {@code call}, once every shard records {@code namespace} where {@code policy} keeps it (at once if known). */
    private CompletionStage<byte[]> whenAgreed(
            String namespace, ClaimPolicy policy, Supplier<CompletionStage<byte[]>> call) {
        if (agreedNamespaces.contains(namespace)) {
            try {
                return call.get();
            } catch (RuntimeException e) {
                // fails the stage, as it would behind the check
                return CompletableFuture.failedFuture(new CompletionException(e));
            }
        }
        return namespaces.agree(namespace, policy).thenCompose(done -> {
            agreedNamespaces.add(namespace);
            return call.get();
        });
    }

    @Override
    public CompletionStage<List<List<SequenceRange>>> checkRanges(RangeRequest request, ClaimPolicy policy) {
        return claims.checkRanges(request, clockMillis.getAsLong());
    }

    @Override
    public CompletionStage<Void> commitRanges(RangeRequest request, ClaimPolicy policy) {
        return claims.commitRanges(request, policy, clockMillis.getAsLong());
    }

    /**
     * Delivers every release published by any agent on the shards' release channel, as the 7-byte fields
     * both layouts keep, and tells whether the channel is subscribed on every shard.
     */
    @Override
    public Subscription subscribe(ReleaseListener listener) {
        RedisPort.Subscription subscription = port.subscribe(
                keys.releaseChannel(),
                payload -> {
                    for (int off = 0;
                            off + FingerprintTables.FIELD_BYTES <= payload.length;
                            off += FingerprintTables.FIELD_BYTES) {
                        listener.released(fieldAt(payload, off));
                    }
                },
                listening -> {
                    if (!listening) {
                        LOG.log(
                                Level.WARNING,
                                "release channel lost; near-cache cleared and bypassed until it is back");
                    }
                    listener.listening(listening);
                });
        return subscription::close;
    }

    /** A released id's field: the top 56 bits of its key, 7 bytes big-endian. */
    private static long fieldAt(byte[] bytes, int off) {
        long f = 0;
        for (int i = 0; i < FingerprintTables.FIELD_BYTES; i++) {
            f = (f << 8) | (bytes[off + i] & 0xff);
        }
        return f;
    }

    @Override
    public EventClocks eventClocks() {
        return clocks;
    }

    /** Every shard answers and holds the topology record the agent expects. */
    @Override
    public CompletionStage<Void> ready() {
        return port.ping().thenRun(() -> {
            String problem = topology.problem();
            if (problem != null) {
                throw new StoreUnavailableException(FailureKind.TOPOLOGY, problem, null);
            }
        });
    }

    @Override
    public Map<String, Object> stats() {
        Map<String, Object> s = new LinkedHashMap<>();
        List<Map<String, Object>> shards = new ArrayList<>();
        for (int i = 0; i < port.shards(); i++) {
            Map<String, Object> shard = port.stats(i);
            shard.put("topology", topology.stats(i));
            long[] m = memory.of(i);
            shard.put("used_memory", m[0]);
            shard.put("maxmemory", m[1]);
            shards.add(shard);
        }
        fingerprints.stats(shards);
        times.stats(shards);
        Map<String, Object> timed = new LinkedHashMap<>();
        windows.eventRates()
                .forEach((ns, rate) ->
                        timed.put(ns, Map.of("event_rate", rate, "buckets_per_second", TimeBuckets.slices(rate))));
        s.put("event_time_namespaces", timed);
        claims.stats(s);
        s.put("timeout_ms", options.timeout().toMillis());
        s.put("shards", shards);
        return s;
    }

    /** Redis persists by its own configuration (AOF, RDB); nothing to flush here. */
    @Override
    public void flush() {}

    @Override
    public void close() {
        sweeper.close();
        timedSweeper.close();
        memory.close();
        topology.close();
        // not shutdownNow: a retry's pause already scheduled still ends with its try, which answers its call
        housekeeping.scheduler().shutdown();
        port.close();
    }

    @Override
    public String toString() {
        if (options.cluster()) {
            return "redis cluster " + RedisOptions.redact(options.uris().get(0)) + " in " + port.shards() + " groups";
        }
        List<String> names = new ArrayList<>();
        for (int i : lists.current().shards()) {
            names.add(port.name(i));
        }
        return "redis " + names;
    }
}
