package dev.dedup.agent.store.redis.access;

import dev.dedup.agent.config.RedisOptions;
import dev.dedup.agent.metrics.MetricNames;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisConnectionStateListener;
import io.lettuce.core.RedisNoScriptException;
import io.lettuce.core.RedisURI;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.async.RedisAsyncCommands;
import io.lettuce.core.cluster.ClusterClientOptions;
import io.lettuce.core.cluster.ClusterTopologyRefreshOptions;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.SlotHash;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.api.async.RedisAdvancedClusterAsyncCommands;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;
import io.lettuce.core.cluster.pubsub.StatefulRedisClusterPubSubConnection;
import io.lettuce.core.codec.ByteArrayCodec;
import io.lettuce.core.pubsub.RedisPubSubAdapter;
import io.lettuce.core.resource.ClientResources;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

/**
 * The {@link RedisPort} on a Redis Cluster: the port's shards are {@code --redis-cluster-groups} groups, each
 * one hash slot ({@link RedisKeys#clustered}), reached through one Lettuce cluster client and its
 * connection, which sends each script call to the master of its first key's slot and follows {@code MOVED}
 * and {@code ASK} redirections (a reshard) by itself.
 *
 * <p>As on standalone shards, commands fail at once while the node of their slot is disconnected and after
 * the timeout. The client refreshes its view of the cluster every {@value #REFRESH_SECONDS} seconds and
 * whenever a redirection, an unknown node or repeated reconnects say it changed, so after a failover calls
 * reach the promoted replica without a restart. A script is called by its SHA; on {@code NOSCRIPT} (the
 * script cache is each node's own: a promoted replica or a node that took a slot may not have it) it is sent
 * whole once with {@code EVAL}, which runs it on the same node and caches it there. A {@code TRYAGAIN} (the
 * call's slot is being migrated and its keys are split between two nodes for a moment) is retried after a
 * short pause, {@value #TRYAGAIN_ATTEMPTS} times at most within half the timeout, then fails with 503. With {@code
 * --redis-wait-replicas} a call and its {@code WAIT} go to one node, whose replicas must acknowledge the call's
 * writes, as on standalone shards.
 */
public final class LettuceCluster implements RedisPort {

    static final int REFRESH_SECONDS = 2;
    static final int TRYAGAIN_ATTEMPTS = 8;

    private final RedisOptions options;
    private final String name;
    private final int groups;
    private final ClientResources resources;
    private final RedisClusterClient client;
    private final StatefulRedisClusterConnection<byte[], byte[]> connection;
    /** A refresh of the client's view of the cluster asked for by a redirection, not yet done. */
    private final AtomicBoolean refreshing = new AtomicBoolean();
    /** Per {@link Mode}: script call times, over all groups (per group they would multiply the histograms). */
    private final Timer[] timers;

    /** Connects to the cluster by any of the nodes its URI names, or fails saying why, and loads {@code scripts}. */
    public LettuceCluster(RedisOptions options, MeterRegistry registry, List<RedisScript> scripts) {
        this.options = options;
        this.name = RedisOptions.redact(options.uris().get(0));
        this.groups = options.clusterGroups();
        this.resources = LettuceShards.clientResources();
        List<RedisURI> seeds;
        try {
            seeds = seeds(options.uris().get(0), options.timeout());
        } catch (RuntimeException e) {
            resources.shutdown(0, LettuceShards.CLOSE_SECONDS, TimeUnit.SECONDS);
            throw new IllegalStateException("redis cluster " + name + ": not a cluster URI: " + e.getMessage(), e);
        }
        this.client = RedisClusterClient.create(resources, seeds);
        ClusterClientOptions.Builder clientOptions = ClusterClientOptions.builder();
        LettuceShards.commonOptions(clientOptions, options);
        client.setOptions(clientOptions
                .topologyRefreshOptions(ClusterTopologyRefreshOptions.builder()
                        .enablePeriodicRefresh(Duration.ofSeconds(REFRESH_SECONDS))
                        .enableAllAdaptiveRefreshTriggers()
                        .adaptiveRefreshTriggersTimeout(Duration.ofMillis(500))
                        .refreshTriggersReconnectAttempts(2)
                        .build())
                .build());
        try {
            this.connection = client.connect(ByteArrayCodec.INSTANCE);
        } catch (RuntimeException e) {
            client.shutdown(0, LettuceShards.CLOSE_SECONDS, TimeUnit.SECONDS);
            resources.shutdown(0, LettuceShards.CLOSE_SECONDS, TimeUnit.SECONDS);
            throw new IllegalStateException(
                    "redis cluster " + name + ": cannot connect: " + RedisFailures.rootMessage(e), e);
        }
        try {
            for (RedisScript script : scripts) {
                connection
                        .async()
                        .scriptLoad(script.body())
                        .toCompletableFuture()
                        .join(); // on every node
            }
        } catch (RuntimeException e) {
            close();
            throw new IllegalStateException(
                    "redis cluster " + name + ": cannot load the scripts: " + RedisFailures.rootMessage(e), e);
        }
        this.timers = new Timer[Mode.values().length];
        for (Mode mode : Mode.values()) {
            timers[mode.ordinal()] = Timer.builder(MetricNames.REDIS_SCRIPT)
                    .tags(MetricNames.TAG_SHARD, "cluster", "op", mode.tag())
                    .description("Script calls per shard")
                    .publishPercentileHistogram()
                    .register(registry);
        }
    }

    /**
     * {@code redis-cluster://[user:password@]h1:p1,h2:p2} (or {@code rediss-cluster://} for TLS): one
     * {@code redis://} (or {@code rediss://}) URI per node, each with the user and password.
     */
    static List<RedisURI> seeds(String uri, Duration timeout) {
        boolean tls = uri.startsWith(RedisOptions.TLS_CLUSTER_SCHEME);
        String rest = uri.substring((tls ? RedisOptions.TLS_CLUSTER_SCHEME : RedisOptions.CLUSTER_SCHEME).length());
        int at = rest.lastIndexOf('@');
        String userInfo = at < 0 ? "" : rest.substring(0, at + 1);
        List<RedisURI> seeds = new ArrayList<>();
        for (String node : rest.substring(at + 1).split(",")) {
            if (node.isBlank()) {
                continue;
            }
            RedisURI seed = RedisURI.create((tls ? "rediss://" : "redis://") + userInfo + node.trim());
            seed.setTimeout(timeout);
            seeds.add(seed);
        }
        if (seeds.isEmpty()) {
            throw new IllegalArgumentException("names no node");
        }
        return seeds;
    }

    @Override
    public int shards() {
        return groups;
    }

    @Override
    public String name(int group) {
        return name + " group " + group;
    }

    @Override
    public CompletionStage<List<Object>> eval(int group, RedisScript script, Mode mode, byte[][] keys, byte[][] args) {
        long start = System.nanoTime();
        CompletableFuture<List<Object>> result = new CompletableFuture<>();
        if (options.waitReplicas() > 0 && mode.waitsForReplicas()) {
            evalAndWait(group, script, keys, args).whenComplete((reply, failure) -> {
                if (failure != null) {
                    result.completeExceptionally(failure);
                } else {
                    result.complete(reply);
                }
            });
        } else {
            attempt(script, keys, args, start, 1, result);
        }
        Timer timer = timers[mode.ordinal()];
        return result.handle((reply, failure) -> {
            timer.record(System.nanoTime() - start, TimeUnit.NANOSECONDS);
            if (failure != null) {
                throw RedisFailures.translate(name(group), failure);
            }
            return reply;
        });
    }

    /**
     * With {@code --redis-wait-replicas}: the script and its {@code WAIT} on one node connection, that of the master
     * serving the keys' slot in the client's view of the cluster. {@code WAIT} counts the writes of the connection it
     * is sent on, and the cluster connection might send the two commands to two nodes if the slot moved between them.
     * A {@code MOVED} or {@code ASK} (the slot moved since the view was taken) fails the call (503, {@code cluster})
     * and has the view refreshed; a {@code TRYAGAIN} fails it too.
     */
    private CompletionStage<List<Object>> evalAndWait(int group, RedisScript script, byte[][] keys, byte[][] args) {
        RedisClusterNode node = connection.getPartitions().getMasterBySlot(SlotHash.getSlot(keys[0]));
        if (node == null) {
            return CompletableFuture.failedFuture(
                    new IllegalStateException(name(group) + ": no master serves its slot"));
        }
        String where = name(group) + " on " + node.getUri().getHost() + ":"
                + node.getUri().getPort();
        return connection
                .getConnectionAsync(node.getNodeId())
                .thenCompose(c -> {
                    RedisAsyncCommands<byte[], byte[]> redis = c.async();
                    return LettuceShards.evalsha(redis, script, keys, args)
                            .thenCompose(reply -> LettuceShards.replicated(redis, where, options, reply));
                })
                .whenComplete((reply, failure) -> {
                    if (failure != null && isRedirection(failure) && refreshing.compareAndSet(false, true)) {
                        client.refreshPartitionsAsync().whenComplete((done, e) -> refreshing.set(false));
                    }
                });
    }

    private static boolean isRedirection(Throwable failure) {
        return RedisFailures.unwrap(failure) instanceof RedisCommandExecutionException e
                && (String.valueOf(e.getMessage()).startsWith("MOVED")
                        || String.valueOf(e.getMessage()).startsWith("ASK"));
    }

    /** One try of a script call; a {@code TRYAGAIN} is tried again after a pause, within bounds. */
    private void attempt(
            RedisScript script,
            byte[][] keys,
            byte[][] args,
            long start,
            int attempt,
            CompletableFuture<List<Object>> result) {
        CompletionStage<List<Object>> call;
        try {
            call = evalsha(connection.async(), script, keys, args);
        } catch (RuntimeException e) {
            result.completeExceptionally(e);
            return;
        }
        call.whenComplete((reply, failure) -> {
            if (failure == null) {
                result.complete(reply);
                return;
            }
            long pauseMillis = Math.min(100, 5L << attempt);
            long leftMillis = options.timeout().toMillis() / 2 - (System.nanoTime() - start) / 1_000_000;
            if (attempt < TRYAGAIN_ATTEMPTS && leftMillis > pauseMillis && isTryAgain(failure)) {
                CompletableFuture.delayedExecutor(pauseMillis, TimeUnit.MILLISECONDS)
                        .execute(() -> attempt(script, keys, args, start, attempt + 1, result));
            } else {
                result.completeExceptionally(failure);
            }
        });
    }

    private static boolean isTryAgain(Throwable failure) {
        return RedisFailures.unwrap(failure) instanceof RedisCommandExecutionException e
                && String.valueOf(e.getMessage()).startsWith("TRYAGAIN");
    }

    /**
     * {@code EVALSHA}, routed by the slot of the first key; on {@code NOSCRIPT}, the body with {@code EVAL},
     * routed the same way (to the node that answered, unless the slot moved meanwhile).
     */
    private static CompletionStage<List<Object>> evalsha(
            RedisAdvancedClusterAsyncCommands<byte[], byte[]> redis, RedisScript script, byte[][] keys, byte[][] args) {
        return redis.<List<Object>>evalsha(script.sha(), ScriptOutputType.MULTI, keys, args)
                .handle((result, failure) -> {
                    if (failure == null) {
                        return CompletableFuture.completedFuture(result);
                    }
                    if (RedisFailures.unwrap(failure) instanceof RedisNoScriptException) {
                        return redis.<List<Object>>eval(script.body(), ScriptOutputType.MULTI, keys, args);
                    }
                    return CompletableFuture.<List<Object>>failedFuture(failure);
                })
                .thenCompose(stage -> stage);
    }

    /** The masters serving slots, as the client last saw the cluster. */
    private List<RedisClusterNode> masters() {
        List<RedisClusterNode> masters = new ArrayList<>();
        for (RedisClusterNode node : connection.getPartitions()) {
            if (node.is(RedisClusterNode.NodeFlag.UPSTREAM) && !node.getSlots().isEmpty()) {
                masters.add(node);
            }
        }
        return masters;
    }

    private StatefulRedisConnection<byte[], byte[]> nodeConnection(RedisClusterNode node) {
        return connection.getConnection(node.getUri().getHost(), node.getUri().getPort());
    }

    /** Completes when every master serving slots answers a {@code PING}. */
    @Override
    public CompletionStage<Void> ping() {
        List<CompletableFuture<String>> pings = new ArrayList<>();
        for (RedisClusterNode node : masters()) {
            String where = name + " node " + node.getUri().getHost() + ":"
                    + node.getUri().getPort();
            pings.add(connection
                    .getConnectionAsync(node.getUri().getHost(), node.getUri().getPort())
                    .thenCompose(c -> c.async().ping())
                    .toCompletableFuture()
                    .exceptionally(e -> {
                        throw RedisFailures.translate(where, e);
                    }));
        }
        return CompletableFuture.allOf(pings.toArray(CompletableFuture[]::new));
    }

    /** Every master's policy: a group's slot may move to any of them. */
    @Override
    public List<EvictionPolicy.Reading> evictionPolicies() {
        return masters().stream()
                .map(node -> EvictionPolicy.read(
                        "redis cluster " + name + " node " + node.getUri().getHost() + ":"
                                + node.getUri().getPort(),
                        nodeConnection(node).async()))
                .toList();
    }

    /**
     * Subscribes on one node with the cluster's pub/sub connection: a classic {@code PUBLISH} reaches every
     * node of a cluster, so one subscription hears every group's releases. When its node goes, the connection
     * is lost ({@code onLost}) and comes back on another node of the cluster.
     */
    @Override
    public Subscription subscribe(byte[] channel, Consumer<byte[]> onMessage, Runnable onLost, Runnable onBack) {
        AtomicInteger subscribed = new AtomicInteger();
        StatefulRedisClusterPubSubConnection<byte[], byte[]> c = client.connectPubSub(ByteArrayCodec.INSTANCE);
        LettuceShards.ChannelState state = new LettuceShards.ChannelState(subscribed, onMessage, onLost, onBack);
        try {
            c.addListener((RedisPubSubAdapter<byte[], byte[]>) state);
            c.addListener((RedisConnectionStateListener) state);
            RedisFailures.await(c.async().subscribe(channel));
        } catch (RuntimeException e) {
            LettuceShards.closeWithin(c, "release channel subscription");
            throw e;
        }
        return new Subscription() {
            @Override
            public boolean listening() {
                return subscribed.get() == 1;
            }

            @Override
            public void close() {
                state.close();
                LettuceShards.closeWithin(c, "release channel subscription");
            }
        };
    }

    @Override
    public CompletionStage<MemoryInfo> memory(int group) {
        RedisClusterNode node = connection.getPartitions().getMasterBySlot(RedisKeys.groupSlot(group));
        if (node == null) {
            return CompletableFuture.failedFuture(
                    new IllegalStateException(name(group) + ": no master serves its slot"));
        }
        return connection
                .getConnectionAsync(node.getUri().getHost(), node.getUri().getPort())
                .thenCompose(c -> c.async().info("memory"))
                .thenApply(MemoryInfo::parse)
                .exceptionally(e -> {
                    throw RedisFailures.translate(name(group), e);
                });
    }

    @Override
    public Map<String, Object> stats(int group) {
        Map<String, Object> s = new LinkedHashMap<>();
        int slot = RedisKeys.groupSlot(group);
        s.put("shard", group);
        s.put("uri", name);
        s.put("slot", slot);
        RedisClusterNode node = connection.getPartitions().getMasterBySlot(slot);
        s.put(
                "node",
                node == null
                        ? null
                        : node.getUri().getHost() + ":" + node.getUri().getPort());
        s.put("connected", connection.isOpen());
        return s;
    }

    @Override
    public void close() {
        if (connection != null) {
            LettuceShards.closeWithin(connection, "redis cluster " + name + ": connection");
        }
        client.shutdown(0, LettuceShards.CLOSE_SECONDS, TimeUnit.SECONDS);
        resources.shutdown(0, LettuceShards.CLOSE_SECONDS, TimeUnit.SECONDS);
    }
}
