package dev.dedup.agent.store.redis;

import dev.dedup.agent.config.RedisOptions;
import dev.dedup.agent.config.WindowOptions;
import dev.dedup.agent.metrics.MetricNames;
import dev.dedup.agent.store.ClaimEnds;
import dev.dedup.agent.store.ClaimStore;
import dev.dedup.agent.store.StoreUnavailableException;
import dev.dedup.codec.Batch;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.DefaultClientResources;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.lang.System.Logger.Level;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.function.LongSupplier;

/**
 * Claims kept in Redis hash buckets on one or more shards, written by one Lua script call per shard per
 * batch (per {@value #MAX_ITEMS_PER_CALL} items), the shards' calls in parallel. See {@link RedisLayout}.
 *
 * <p>A batch fails as a whole with {@link StoreUnavailableException} when any shard it touches fails;
 * the items the other shards claimed stay claimed by their owners, so the worker's retry of the same
 * batch answers them {@code retry}.
 */
public final class RedisStore implements ClaimStore {

    private static final System.Logger LOG = System.getLogger(RedisStore.class.getName());
    /** Items per script call: bounds how long one call holds a shard. */
    static final int MAX_ITEMS_PER_CALL = 4096;
    /** Every bucket is swept of expired claims once per this period (by one agent among all). */
    static final long SWEEP_PERIOD_SECONDS = 3600;
    /**
     * TTL of a level key, refreshed when it is written first and at every sweep: longer than any claim
     * in it can live, so keys vanish only when the agents stop sweeping, and short enough that a stale
     * expiry, kept modulo 2^20 seconds, can never pass for a live one.
     */
    static final long KEY_TTL_MILLIS = (RedisOptions.MAX_WINDOW.toSeconds() + 2 * SWEEP_PERIOD_SECONDS) * 1000;

    private final RedisOptions options;
    private final LongSupplier clockMillis;
    private final ClientResources resources;
    private final List<RedisShard> shards;
    private final RedisLayout layout;
    private final DedupScript script = new DedupScript();
    private final DedupScript timedScript = new DedupScript("timed.lua");
    private final TimeLayout timeLayout;
    private final WindowOptions windows;
    private final byte[] levelEntries;
    private final byte[] maxLevels;
    private final byte[] keyTtl = ascii(KEY_TTL_MILLIS);
    private final RedisSweeper sweeper;
    private final Timer[] claimTimers;
    private final Timer[] releaseTimers;
    private final Counter[] evictions;
    private final Counter[] overfull;
    private final MeterRegistry registry;

    /** A store with no namespace filed by event time. */
    public RedisStore(RedisOptions options, LongSupplier clockMillis, MeterRegistry registry) {
        this(options, WindowOptions.defaults(), clockMillis, registry);
    }

    /**
     * Connects to every shard (or fails naming the one that cannot be reached) and loads the scripts.
     * {@code windows} tells which namespaces file claims by event time, and their rates.
     */
    public RedisStore(RedisOptions options, WindowOptions windows, LongSupplier clockMillis, MeterRegistry registry) {
        this.options = options;
        this.windows = windows;
        this.clockMillis = clockMillis;
        this.registry = registry;
        this.resources = DefaultClientResources.create();
        List<RedisShard> connected = new ArrayList<>();
        try {
            for (int i = 0; i < options.uris().size(); i++) {
                connected.add(RedisShard.connect(i, options.uris().get(i), options, resources));
            }
        } catch (RuntimeException e) {
            connected.forEach(RedisShard::close);
            resources.shutdown(0, 2, TimeUnit.SECONDS);
            throw e;
        }
        this.shards = List.copyOf(connected);
        this.layout = new RedisLayout(options.buckets(), shards.size(), options.keyPrefix());
        this.timeLayout = new TimeLayout(shards.size(), options.keyPrefix());
        int entries = options.levelEntries();
        for (RedisShard shard : shards) {
            int serverMax = shard.inspect();
            if (serverMax > 0 && entries > serverMax - 2) {
                LOG.log(Level.WARNING, "redis shard " + shard.name() + " has hash-max-listpack-entries " + serverMax
                        + "; bucket levels hold " + (serverMax - 2) + " claims instead of " + entries);
                entries = serverMax - 2;
            }
            script.load(shard.async()).toCompletableFuture().join();
            timedScript.load(shard.async()).toCompletableFuture().join();
        }
        this.levelEntries = ascii(Math.max(1, entries));
        this.maxLevels = ascii(options.maxLevels());
        this.claimTimers = new Timer[shards.size()];
        this.releaseTimers = new Timer[shards.size()];
        this.evictions = new Counter[shards.size()];
        this.overfull = new Counter[shards.size()];
        for (int i = 0; i < shards.size(); i++) {
            String shard = String.valueOf(i);
            claimTimers[i] = Timer.builder(MetricNames.REDIS_SCRIPT).tags(MetricNames.TAG_SHARD, shard, "op", "claim")
                    .description("Script calls per shard").publishPercentileHistogram().register(registry);
            releaseTimers[i] = Timer.builder(MetricNames.REDIS_SCRIPT).tags(MetricNames.TAG_SHARD, shard, "op", "release")
                    .description("Script calls per shard").publishPercentileHistogram().register(registry);
            evictions[i] = Counter.builder(MetricNames.REDIS_EVICTIONS).tag(MetricNames.TAG_SHARD, shard)
                    .description("Live claims forgotten because every level of their bucket was full")
                    .register(registry);
            overfull[i] = Counter.builder(MetricNames.REDIS_OVERFULL).tag(MetricNames.TAG_SHARD, shard)
                    .description("Claims filed by event time into a bucket already holding level-entries claims:"
                            + " the namespace's event rate is set below its real rate")
                    .register(registry);
        }
        this.sweeper = new RedisSweeper(this, options.buckets(), SWEEP_PERIOD_SECONDS, clockMillis);
    }

    @Override
    public String kind() {
        return "redis";
    }

    /** The layout's release channel: where {@code dedup.lua} publishes released fields. */
    public byte[] releaseChannel() {
        return layout.releaseChannel();
    }

    /** The shards' Lettuce clients, in shard order, for subscribers. */
    public List<io.lettuce.core.RedisClient> clients() {
        return shards.stream().map(RedisShard::client).toList();
    }

    @Override
    public CompletionStage<byte[]> claim(Batch batch, long windowMillis) {
        long now = clockMillis.getAsLong();
        if (batch.hasEventTimes()) {
            return byEventTime(batch, 'c', now, windowMillis, claimTimers);
        }
        return run(batch, now, 'c', RedisLayout.expiry(now, windowMillis), null, claimTimers);
    }

    @Override
    public CompletionStage<byte[]> release(Batch batch) {
        if (batch.hasEventTimes()) {
            return byEventTime(batch, 'r', clockMillis.getAsLong(), windows.windowMillis(batch.namespace()),
                    releaseTimers);
        }
        return run(batch, clockMillis.getAsLong(), 'r', 0, layout.releaseChannel(), releaseTimers);
    }

    /**
     * Claims or releases a batch whose every item has an event time, in the {@link TimeLayout}; its
     * buckets per second come from the namespace's event rate.
     */
    private CompletionStage<byte[]> byEventTime(Batch batch, char mode, long nowMillis, long window,
                                                Timer[] timers) {
        int rate = windows.eventRate(batch.namespace());
        if (rate == 0) {
            throw new IllegalStateException("namespace " + batch.namespace() + " is not filed by event time");
        }
        if (batch.size() == 0) {
            return CompletableFuture.completedFuture(new byte[0]);
        }
        ShardCalls calls = ShardCalls.plan(batch.size(), timeLayout.packing(batch, TimeLayout.slices(rate)),
                shards.size(), MAX_ITEMS_PER_CALL);
        byte[] modeArg = {(byte) mode};
        byte[] channel = layout.releaseChannel();
        return run(batch.size(), calls, timedScript, call -> {
            byte[] ttls = new byte[call.buckets().length * 4];
            long nowSecond = Math.floorDiv(nowMillis, 1000L);
            for (int k = 0; k < call.buckets().length; k++) {
                long ends = ClaimEnds.endSecond(TimeLayout.second(call.buckets()[k]), nowMillis, window);
                int ttl = (int) Math.max(0, ends - nowSecond);
                int at = k * 4;
                ttls[at] = (byte) (ttl >>> 24);
                ttls[at + 1] = (byte) (ttl >>> 16);
                ttls[at + 2] = (byte) (ttl >>> 8);
                ttls[at + 3] = (byte) ttl;
            }
            return mode == 'c' ? new byte[][] {modeArg, levelEntries, call.items(), ttls}
                    : new byte[][] {modeArg, levelEntries, call.items(), ttls, channel};
        }, timers, overfull);
    }

    private byte[][] head(char mode, long nowMillis) {
        return new byte[][] {{(byte) mode}, ascii(Math.floorDiv(nowMillis, 1000L)), keyTtl, levelEntries, maxLevels};
    }

    private CompletionStage<byte[]> run(Batch batch, long nowMillis, char mode, int expiry, byte[] tail,
                                        Timer[] timers) {
        if (batch.size() == 0) {
            return CompletableFuture.completedFuture(new byte[0]);
        }
        ShardCalls calls = ShardCalls.plan(batch, layout, MAX_ITEMS_PER_CALL, expiry);
        byte[][] head = head(mode, nowMillis);
        return run(batch.size(), calls, script, call -> {
            byte[][] args = new byte[head.length + (tail == null ? 1 : 2)][];
            System.arraycopy(head, 0, args, 0, head.length);
            args[head.length] = call.items();
            if (tail != null) {
                args[head.length + 1] = tail;
            }
            return args;
        }, timers, evictions);
    }

    /**
     * Makes the calls, shards in parallel, and gathers the answers in batch order. A script answers
     * {@code {answers, count}}; the count goes to {@code counted} (evictions, or overfull).
     */
    private CompletionStage<byte[]> run(int size, ShardCalls calls, DedupScript script,
                                        Function<ShardCalls.Call, byte[][]> argsOf, Timer[] timers,
                                        Counter[] counted) {
        byte[] answers = new byte[size];
        List<CompletableFuture<Void>> pending = new ArrayList<>(calls.size());
        for (ShardCalls.Call call : calls.calls()) {
            RedisShard shard = shards.get(call.shard());
            long start = System.nanoTime();
            CompletionStage<List<Object>> result;
            try {
                result = script.call(shard.async(), call.keys(), argsOf.apply(call));
                if (options.waitReplicas() > 0) {
                    result = result.thenCompose(reply -> replicated(shard, reply));
                }
            } catch (RuntimeException e) {
                result = CompletableFuture.failedFuture(e);
            }
            pending.add(result.<Void>handle((reply, failure) -> {
                timers[call.shard()].record(System.nanoTime() - start, TimeUnit.NANOSECONDS);
                if (failure != null) {
                    throw RedisFailures.translate(shard.name(), failure);
                }
                byte[] got = (byte[]) reply.get(0);
                if (got.length != call.indexes().length) {
                    throw new StoreUnavailableException("error", "redis shard " + shard.name() + " answered "
                            + got.length + " verdicts for " + call.indexes().length + " items", null);
                }
                for (int i = 0; i < got.length; i++) {
                    answers[call.indexes()[i]] = got[i];
                }
                long count = (Long) reply.get(1);
                if (count > 0) {
                    counted[call.shard()].increment(count);
                }
                return null;
            }).toCompletableFuture());
        }
        return CompletableFuture.allOf(pending.toArray(CompletableFuture[]::new)).thenApply(ignored -> answers);
    }

    /**
     * {@code reply}, once {@code WAIT} says that enough replicas hold the shard's writes so far; else a
     * failure, so that the batch is answered 503 and resent (its claims are then answered {@code retry}).
     */
    private CompletionStage<List<Object>> replicated(RedisShard shard, List<Object> reply) {
        int wanted = options.waitReplicas();
        // WAIT answers on its own a little before the command timeout would fail it.
        long waitMillis = Math.max(1, options.timeout().toMillis() * 3 / 4);
        return shard.async().waitForReplication(wanted, waitMillis).thenApply(acked -> {
            if (acked < wanted) {
                throw new StoreUnavailableException("replication", "redis shard " + shard.name() + ": " + acked
                        + " of " + wanted + " replicas acknowledged the claims within "
                        + waitMillis + " ms", null);
            }
            return reply;
        });
    }

    /**
     * Sweeps buckets {@code [from, to)} of expired claims on every shard, unless an agent already swept
     * this {@code slot}; returns the claims removed.
     */
    CompletionStage<Long> sweep(int from, int to, long slot, int rangeIndex) {
        List<List<byte[]>> keysByShard = new ArrayList<>();
        for (int s = 0; s < shards.size(); s++) {
            List<byte[]> keys = new ArrayList<>();
            keys.add(layout.sweepMarker(rangeIndex));
            keysByShard.add(keys);
        }
        for (int bucket = from; bucket < to; bucket++) {
            keysByShard.get(layout.shard(bucket)).add(layout.bucketKey(bucket));
        }
        byte[][] args = new byte[6][];
        System.arraycopy(head('s', clockMillis.getAsLong()), 0, args, 0, 5);
        args[5] = ascii(slot);
        List<CompletableFuture<Long>> pending = new ArrayList<>();
        for (int s = 0; s < shards.size(); s++) {
            List<byte[]> keys = keysByShard.get(s);
            if (keys.size() == 1) {
                continue;
            }
            RedisShard shard = shards.get(s);
            pending.add(script.call(shard.async(), keys.toArray(byte[][]::new), args).toCompletableFuture()
                    .thenApply(reply -> (Long) reply.get(1))
                    .exceptionally(e -> { throw RedisFailures.translate(shard.name(), e); }));
        }
        return CompletableFuture.allOf(pending.toArray(CompletableFuture[]::new))
                .thenApply(ignored -> pending.stream().mapToLong(CompletableFuture::join).sum());
    }

    /** Sweeps every bucket of expired claims now, on every shard; returns the claims removed. */
    public long sweepExpired() {
        return sweeper.sweepAll();
    }

    @Override
    public CompletionStage<Void> ready() {
        List<CompletableFuture<String>> pings = new ArrayList<>();
        for (RedisShard shard : shards) {
            pings.add(shard.ping().toCompletableFuture()
                    .exceptionally(e -> { throw RedisFailures.translate(shard.name(), e); }));
        }
        return CompletableFuture.allOf(pings.toArray(CompletableFuture[]::new));
    }

    @Override
    public Map<String, Object> stats() {
        Map<String, Object> s = new LinkedHashMap<>();
        s.put("buckets", options.buckets());
        s.put("level_entries", Integer.parseInt(new String(levelEntries, java.nio.charset.StandardCharsets.US_ASCII)));
        s.put("max_levels", options.maxLevels());
        Map<String, Object> timed = new LinkedHashMap<>();
        windows.eventRates().forEach((ns, rate) -> timed.put(ns, Map.of("event_rate", rate,
                "buckets_per_second", TimeLayout.slices(rate))));
        s.put("event_time_namespaces", timed);
        s.put("timeout_ms", options.timeout().toMillis());
        List<Map<String, Object>> list = new ArrayList<>();
        for (int i = 0; i < shards.size(); i++) {
            Map<String, Object> shard = shards.get(i).stats();
            shard.put("evictions", (long) evictions[i].count());
            shard.put("overfull", (long) overfull[i].count());
            list.add(shard);
        }
        s.put("shards", list);
        return s;
    }

    /** Redis persists by its own configuration (AOF, RDB); nothing to flush here. */
    @Override
    public void flush() {
    }

    @Override
    public void close() {
        sweeper.close();
        shards.forEach(RedisShard::close);
        resources.shutdown(0, 2, TimeUnit.SECONDS);
    }

    static byte[] ascii(long n) {
        return Long.toString(n).getBytes(java.nio.charset.StandardCharsets.US_ASCII);
    }

    @Override
    public String toString() {
        return "redis " + Arrays.toString(RedisShard.names(shards).toArray());
    }
}
