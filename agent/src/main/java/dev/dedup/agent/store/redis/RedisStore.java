package dev.dedup.agent.store.redis;

import dev.dedup.agent.config.RedisOptions;
import dev.dedup.agent.config.WindowOptions;
import dev.dedup.agent.store.ClaimPolicy;
import dev.dedup.agent.store.ClaimStore;
import dev.dedup.agent.store.RangeStore;
import dev.dedup.agent.store.ReleaseFeed;
import dev.dedup.agent.store.ReleaseListener;
import dev.dedup.agent.store.StoreUnavailableException;
import dev.dedup.codec.Batch;
import dev.dedup.codec.RangeRequest;
import dev.dedup.wire.SequenceRange;
import io.micrometer.core.instrument.MeterRegistry;
import java.lang.System.Logger.Level;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionStage;
import java.util.function.LongSupplier;

/**
 * Claims kept in Redis on one or more shards (or the groups of a Redis Cluster, {@link LettuceCluster}): a
 * namespace filed by event time in {@link TimeBuckets},
 * every other in {@link FingerprintBuckets}; each writes a batch with one Lua script call per shard (per
 * {@value ShardCalls#MAX_ITEMS_PER_CALL} items), the shards' calls in parallel, through the one
 * {@link RedisPort}.
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
    private final FingerprintBuckets fingerprints;
    private final TimeBuckets times;
    private final RedisRanges ranges;
    private final RedisSweeper sweeper;
    private final Routing routing;
    private final Moves moves;

    /**
     * Connects to every shard (or fails naming the one that cannot be reached) and loads the scripts.
     * {@code windows} names the namespaces filed by event time, for {@code /v1/stats}.
     */
    public RedisStore(RedisOptions asked, WindowOptions windows, LongSupplier clockMillis, MeterRegistry registry) {
        RedisOptions options = asked;
        this.windows = windows;
        this.clockMillis = clockMillis;
        List<RedisScript> scripts = List.of(
                RedisScript.DEDUP,
                RedisScript.SWEEP,
                RedisScript.TIMED,
                RedisScript.RANGES,
                RedisScript.TOPOLOGY,
                RedisScript.MOVE);
        RedisPort shards;
        if (options.cluster()) {
            this.keys = RedisKeys.clustered(options.keyPrefix(), options.clusterGroups());
            shards = new LettuceCluster(options, registry, scripts);
            this.routing = Routing.single(options.clusterGroups());
        } else {
            this.keys = new RedisKeys(options.keyPrefix());
            shards = new LettuceShards(options, registry, scripts);
            this.routing = Routing.of(options);
        }
        Topology agreed = null;
        try {
            agreed = Topology.agreeOrRefuse(shards, keys, routing, options.adoptEmptyShards(), clockMillis, registry);
            this.topology = agreed;
            this.port = agreed.guarded();
            options = FingerprintBuckets.withRecordedBuckets(options, port);
            this.moves = new Moves(
                    port,
                    routing,
                    keys,
                    options.buckets(),
                    options.maxLevels(),
                    clockMillis,
                    previousNeededUntil(options, windows),
                    registry);
            this.fingerprints = new FingerprintBuckets(port, routing, moves, options, keys, registry);
            fingerprints.agreeOrRefuse(options.keyPrefix());
            TimeSlicing slicing = new TimeSlicing(port, options.keyPrefix());
            Map<String, Integer> named = new LinkedHashMap<>(windows.eventRates());
            named.remove(WindowOptions.EVERY_NAMESPACE);
            slicing.agreeOrRefuse(named);
            this.times = new TimeBuckets(port, routing, slicing, options.timeBucketRecords(), keys, registry);
            this.ranges = new RedisRanges(port, routing, moves, keys);
            agreed.onCutOver(moves::walk);
            this.options = options;
        } catch (RuntimeException e) {
            if (agreed != null) {
                agreed.close();
            }
            shards.close();
            throw e;
        }
        this.sweeper = new RedisSweeper(fingerprints, FingerprintBuckets.SWEEP_PERIOD_SECONDS, clockMillis).start();
    }

    @Override
    public String kind() {
        return "redis";
    }

    /** Fingerprint buckets over all shards: as configured, or as the shards recorded. */
    public int buckets() {
        return options.buckets();
    }

    @Override
    public CompletionStage<byte[]> claim(Batch batch, ClaimPolicy policy) {
        long now = clockMillis.getAsLong();
        return routed(
                now,
                () -> policy.byEventTime() ? times.claim(batch, policy, now) : fingerprints.claim(batch, policy, now));
    }

    @Override
    public CompletionStage<byte[]> release(Batch batch, ClaimPolicy policy) {
        long now = clockMillis.getAsLong();
        return routed(
                now, () -> policy.byEventTime() ? times.release(batch, policy, now) : fingerprints.release(batch, now));
    }

    @Override
    public CompletionStage<List<List<SequenceRange>>> checkRanges(RangeRequest request, ClaimPolicy policy) {
        long now = clockMillis.getAsLong();
        return routed(now, () -> ranges.check(request, now));
    }

    @Override
    public CompletionStage<Void> commitRanges(RangeRequest request, ClaimPolicy policy) {
        long now = clockMillis.getAsLong();
        return routed(now, () -> ranges.commit(request, policy, now));
    }

    /** {@code call}, after the cut-over when one is due (during a declared change of the shard list). */
    private <T> CompletionStage<T> routed(long nowMillis, java.util.function.Supplier<CompletionStage<T>> call) {
        if (!routing.inTransition() || routing.cutOver()) {
            return call.get();
        }
        return topology.routable(nowMillis).thenCompose(ready -> call.get());
    }

    /**
     * Until when the previous list holds claims the agent may be asked about: event-time claims of seconds
     * before the cut-over live there to the end of their window; other claims only until they are moved.
     */
    private static long previousNeededUntil(RedisOptions options, WindowOptions windows) {
        if (options.transition() == null) {
            return Long.MIN_VALUE;
        }
        long longest = 0;
        for (String ns : windows.eventRates().keySet()) {
            longest = Math.max(longest, windows.windowMillis(ns));
        }
        return options.transition().cutover().toEpochMilli() + longest;
    }

    /**
     * Delivers every release published by any agent on the shards' release channel, as the 7-byte fields
     * both layouts keep.
     */
    @Override
    public Subscription subscribe(ReleaseListener listener) {
        RedisPort.Subscription subscription = port.subscribe(
                keys.releaseChannel(),
                payload -> {
                    for (int off = 0;
                            off + FingerprintBuckets.FIELD_BYTES <= payload.length;
                            off += FingerprintBuckets.FIELD_BYTES) {
                        listener.released(fieldAt(payload, off));
                    }
                },
                () -> {
                    listener.missedReleases();
                    LOG.log(Level.WARNING, "release channel lost; near-cache cleared and bypassed until it is back");
                },
                listener::missedReleases);
        return new Subscription() {
            @Override
            public boolean listening() {
                return subscription.listening();
            }

            @Override
            public void close() {
                subscription.close();
            }
        };
    }

    /** A released id's field: the top 56 bits of its key, 7 bytes big-endian. */
    private static long fieldAt(byte[] bytes, int off) {
        long f = 0;
        for (int i = 0; i < FingerprintBuckets.FIELD_BYTES; i++) {
            f = (f << 8) | (bytes[off + i] & 0xff);
        }
        return f;
    }

    /** Every shard answers and holds the topology record the agent expects. */
    @Override
    public CompletionStage<Void> ready() {
        return port.ping().thenRun(() -> {
            String problem = topology.problem();
            if (problem != null) {
                throw new StoreUnavailableException("topology", problem, null);
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
            shards.add(shard);
        }
        fingerprints.stats(s, shards);
        times.stats(shards);
        Map<String, Object> timed = new LinkedHashMap<>();
        windows.eventRates()
                .forEach((ns, rate) ->
                        timed.put(ns, Map.of("event_rate", rate, "buckets_per_second", TimeBuckets.slices(rate))));
        s.put("event_time_namespaces", timed);
        if (routing.inTransition()) {
            Map<String, Object> t = new LinkedHashMap<>();
            t.put(
                    "previous",
                    options.transition().previous().stream()
                            .map(RedisOptions::redact)
                            .toList());
            t.put("cutover", options.transition().cutover().toString());
            t.put("cut_over", routing.cutOver());
            t.putAll(moves.stats());
            t.put("previous_droppable", moves.previousDroppable());
            s.put("transition", t);
        }
        s.put("timeout_ms", options.timeout().toMillis());
        s.put("shards", shards);
        return s;
    }

    /** Redis persists by its own configuration (AOF, RDB); nothing to flush here. */
    @Override
    public void flush() {}

    @Override
    public void close() {
        moves.close();
        sweeper.close();
        topology.close();
        port.close();
    }

    @Override
    public String toString() {
        if (options.cluster()) {
            return "redis cluster " + RedisOptions.redact(options.uris().get(0)) + " in " + port.shards() + " groups";
        }
        List<String> names = new ArrayList<>();
        for (int i : routing.current()) {
            names.add(port.name(i));
        }
        return "redis " + names;
    }
}
