package dev.dedup.agent.store.redis;

import dev.dedup.agent.config.RedisOptions;
import dev.dedup.agent.metrics.MetricNames;
import dev.dedup.agent.store.ClaimStore;
import dev.dedup.agent.store.StoreUnavailableException;
import dev.dedup.wire.Batch;
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
    private final byte[] levelEntries;
    private final byte[] maxLevels;
    private final byte[] keyTtl = ascii(KEY_TTL_MILLIS);
    private final RedisSweeper sweeper;
    private final Timer[] claimTimers;
    private final Timer[] releaseTimers;
    private final Counter[] evictions;
    private final MeterRegistry registry;

    /** Connects to every shard (or fails naming the one that cannot be reached) and loads the script. */
    public RedisStore(RedisOptions options, LongSupplier clockMillis, MeterRegistry registry) {
        this.options = options;
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
        int entries = options.levelEntries();
        for (RedisShard shard : shards) {
            int serverMax = shard.inspect();
            if (serverMax > 0 && entries > serverMax - 2) {
                LOG.log(Level.WARNING, "redis shard " + shard.name() + " has hash-max-listpack-entries " + serverMax
                        + "; bucket levels hold " + (serverMax - 2) + " claims instead of " + entries);
                entries = serverMax - 2;
            }
            script.load(shard.async()).toCompletableFuture().join();
        }
        this.levelEntries = ascii(Math.max(1, entries));
        this.maxLevels = ascii(options.maxLevels());
        this.claimTimers = new Timer[shards.size()];
        this.releaseTimers = new Timer[shards.size()];
        this.evictions = new Counter[shards.size()];
        for (int i = 0; i < shards.size(); i++) {
            String shard = String.valueOf(i);
            claimTimers[i] = Timer.builder(MetricNames.REDIS_SCRIPT).tags(MetricNames.TAG_SHARD, shard, "op", "claim")
                    .description("Script calls per shard").publishPercentileHistogram().register(registry);
            releaseTimers[i] = Timer.builder(MetricNames.REDIS_SCRIPT).tags(MetricNames.TAG_SHARD, shard, "op", "release")
                    .description("Script calls per shard").publishPercentileHistogram().register(registry);
            evictions[i] = Counter.builder(MetricNames.REDIS_EVICTIONS).tag(MetricNames.TAG_SHARD, shard)
                    .description("Live claims forgotten because every level of their bucket was full")
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
        return run(batch, now, 'c', RedisLayout.expiry(now, windowMillis), null, claimTimers);
    }

    @Override
    public CompletionStage<byte[]> release(Batch batch) {
        return run(batch, clockMillis.getAsLong(), 'r', 0, layout.releaseChannel(), releaseTimers);
    }

    private byte[][] head(char mode, long nowMillis) {
        return new byte[][] {{(byte) mode}, ascii(Math.floorDiv(nowMillis, 1000L)), keyTtl, levelEntries, maxLevels};
    }

    private CompletionStage<byte[]> run(Batch batch, long nowMillis, char mode, int expiry, byte[] tail,
                                        Timer[] timers) {
        byte[] answers = new byte[batch.size()];
        if (batch.size() == 0) {
            return CompletableFuture.completedFuture(answers);
        }
        ShardCalls calls = ShardCalls.plan(batch, layout, MAX_ITEMS_PER_CALL, expiry);
        byte[][] head = head(mode, nowMillis);
        List<CompletableFuture<Void>> pending = new ArrayList<>(calls.size());
        for (ShardCalls.Call call : calls.calls()) {
            RedisShard shard = shards.get(call.shard());
            long start = System.nanoTime();
            byte[][] args = new byte[head.length + (tail == null ? 1 : 2)][];
            System.arraycopy(head, 0, args, 0, head.length);
            args[head.length] = call.items();
            if (tail != null) {
                args[head.length + 1] = tail;
            }
            CompletionStage<List<Object>> result;
            try {
                result = script.call(shard.async(), call.keys(), args);
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
                long evicted = (Long) reply.get(1);
                if (evicted > 0) {
                    evictions[call.shard()].increment(evicted);
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
        s.put("timeout_ms", options.timeout().toMillis());
        List<Map<String, Object>> list = new ArrayList<>();
        for (int i = 0; i < shards.size(); i++) {
            Map<String, Object> shard = shards.get(i).stats();
            shard.put("evictions", (long) evictions[i].count());
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
