package dev.dedup.agent.store.redis.access.connections;

import dev.dedup.agent.config.RedisOptions;
import dev.dedup.agent.metrics.MetricNames;
import dev.dedup.agent.store.FailureKind;
import dev.dedup.agent.store.StoreUnavailableException;
import dev.dedup.agent.store.redis.access.EvictionReading;
import dev.dedup.agent.store.redis.access.Housekeeping;
import dev.dedup.agent.store.redis.access.MemoryInfo;
import dev.dedup.agent.store.redis.access.RedisFailures;
import dev.dedup.agent.store.redis.access.RedisPort;
import dev.dedup.agent.store.redis.access.RedisPort.Script;
import dev.dedup.agent.store.redis.access.Retry;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisNoScriptException;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.async.RedisAsyncCommands;
import io.lettuce.core.api.async.RedisScriptingAsyncCommands;
import io.lettuce.core.cluster.ClusterClientOptions;
import io.lettuce.core.resource.ClientResources;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.netty.channel.EventLoopGroup;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.LongSupplier;

/**
 * The {@link RedisPort} on Lettuce, for every shape of deployment: standalone shards, Sentinel-managed primaries
 * and a Redis Cluster differ only in where a shard's calls go ({@link Nodes}); the rest is here, once.
 *
 * <ul>
 *   <li>A script is called by its SHA; on {@code NOSCRIPT} (the server restarted, failed over, took a slot, or was
 *       sent {@code SCRIPT FLUSH}) its body is sent once with {@code EVAL} the same way as the call (on a Cluster,
 *       routed by its first key), so it runs where the SHA was refused and is cached there.
 *   <li>With {@code --redis-wait-replicas}, a call that writes what a worker is answered on and its {@code WAIT} go
 *       to one server, whose replicas must acknowledge the writes; else the batch is answered 503 and resent.
 *   <li>On a Redis Cluster, a {@code TRYAGAIN} (a slot being migrated, its keys split between two nodes for a
 *       moment) is tried again after a short pause ({@link #TRYAGAIN}), within half the timeout, then answered
 *       503. Standalone and Sentinel-managed servers never answer it, so their calls are tried once.
 *   <li>Commands fail at once while a connection is down (no buffering that would answer a worker late) and
 *       after the timeout; Lettuce reconnects in the background, so a server that comes back serves again
 *       without a restart.
 * </ul>
 */
public final class LettuceRedis implements RedisPort {

    private static final System.Logger LOG = System.getLogger(LettuceRedis.class.getName());
    /** A slot being migrated: tried again after 10, 20, 40, 80, 100... ms, within half the timeout. */
    static final Retry TRYAGAIN = new Retry(8, 10, 100);

    /** Whether the shards are a Redis Cluster's groups, the only servers that answer {@code TRYAGAIN}. */
    private final boolean cluster;
    /** How long a call is tried again on {@code TRYAGAIN}: half the timeout, in nanoseconds. */
    private final long tryAgainNanos;
    /** Replicas a {@link Durability#REPLICATED} call waits for ({@code --redis-wait-replicas}); 0: none. */
    private final int replicas;
    /** How long a {@code WAIT} waits: it answers on its own a little before the command timeout would fail it. */
    private final long waitMillis;

    private final ClientResources resources;
    private final Nodes nodes;
    /** Per shard, per {@link Op}: script call times (shards sharing a timer tag share the arrays). */
    private final Timer[][] timers;
    /** Nanoseconds, for call times and how long a call has been retried ({@link Housekeeping#ticker}). */
    private final LongSupplier ticker;
    /** Where a {@code TRYAGAIN} waits before its next try: the housekeeping thread. */
    private final Retry.Pauses pauses;

    private LettuceRedis(
            RedisOptions options,
            ClientResources resources,
            Nodes nodes,
            MeterRegistry registry,
            Housekeeping housekeeping) {
        this.cluster = options.cluster();
        this.tryAgainNanos = options.timeout().toNanos() / 2;
        this.replicas = options.waitReplicas();
        this.waitMillis = Math.max(1, options.timeout().toMillis() * 3 / 4);
        this.ticker = housekeeping.ticker();
        this.pauses = housekeeping;
        this.resources = resources;
        this.nodes = nodes;
        this.timers = new Timer[nodes.count()][];
        Map<String, Timer[]> byTag = new HashMap<>();
        for (int i = 0; i < timers.length; i++) {
            timers[i] = byTag.computeIfAbsent(nodes.timerTag(i), tag -> {
                Timer[] perOp = new Timer[Op.values().length];
                for (Op op : Op.values()) {
                    perOp[op.ordinal()] = Timer.builder(MetricNames.REDIS_SCRIPT)
                            .tags(MetricNames.TAG_SHARD, tag, "op", op.tag())
                            .description("Script calls per shard")
                            .publishPercentileHistogram()
                            .register(registry);
                }
                return perOp;
            });
        }
    }

    /**
     * Connects to every shard (or the cluster), or fails naming what cannot be reached, and loads {@code scripts}
     * so that the first batch does not pay for it. The connections run on {@code ioLoops} (the HTTP server's event
     * loops, {@link SharedEventLoops}), or on threads of their own when null; {@code housekeeping} gives the ticker
     * for the times of calls and the thread on which a {@code TRYAGAIN} waits.
     */
    public static LettuceRedis connect(
            RedisOptions options,
            MeterRegistry registry,
            List<Script> scripts,
            EventLoopGroup ioLoops,
            Housekeeping housekeeping) {
        ClientResources resources = Connections.clientResources(ioLoops);
        Nodes nodes = null;
        try {
            if (options.cluster()) {
                ClusterClientOptions.Builder clientOptions = ClusterClientOptions.builder();
                Connections.commonOptions(clientOptions, options);
                nodes = ClusterNodes.connect(options, resources, clientOptions);
            } else {
                ClientOptions.Builder clientOptions = ClientOptions.builder();
                Connections.commonOptions(clientOptions, options);
                nodes = ShardNodes.connect(options, resources, clientOptions.build(), housekeeping.ticker());
            }
            nodes.load(scripts);
            return new LettuceRedis(options, resources, nodes, registry, housekeeping);
        } catch (RuntimeException e) {
            if (nodes != null) {
                nodes.close();
            }
            resources.shutdown(0, Connections.CLOSE_SECONDS, TimeUnit.SECONDS);
            throw e;
        }
    }

    @Override
    public int shards() {
        return nodes.count();
    }

    @Override
    public String name(int shard) {
        return nodes.name(shard);
    }

    @Override
    public CompletionStage<List<Object>> eval(int shard, Script script, Op op, byte[][] keys, byte[][] args) {
        long start = ticker.getAsLong();
        Timer timer = timers[shard][op.ordinal()];
        CompletionStage<List<Object>> called = cluster
                ? TRYAGAIN.run(
                        pauses,
                        () -> call(shard, script, op, keys, args),
                        (reply, failure, pauseMillis) -> isTryAgain(failure)
                                && TimeUnit.MILLISECONDS.toNanos(pauseMillis)
                                        < tryAgainNanos - (ticker.getAsLong() - start))
                : call(shard, script, op, keys, args);
        return called.handle((reply, failure) -> {
            timer.record(ticker.getAsLong() - start, TimeUnit.NANOSECONDS);
            if (failure != null) {
                throw failed(shard, failure);
            }
            return reply;
        });
    }

    /**
     * One try of a script call. One that cannot even be sent fails its stage rather than throw, so that it is timed,
     * translated and told to the shard like any other failure.
     */
    private CompletionStage<List<Object>> call(int shard, Script script, Op op, byte[][] keys, byte[][] args) {
        try {
            if (replicas > 0 && op.durability() == Durability.REPLICATED) {
                return nodes.node(shard)
                        .thenCompose(node ->
                                run(node.commands(), script, keys, args).thenCompose(reply -> replicated(node, reply)));
            }
            return run(nodes.calls(shard), script, keys, args);
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    private static boolean isTryAgain(Throwable failure) {
        return LettuceFailures.code(failure) == RedisFailures.ReplyCode.TRYAGAIN;
    }

    /** {@code failure} as the store reports it; the shard is told, in case it moved. */
    private StoreUnavailableException failed(int shard, Throwable failure) {
        StoreUnavailableException e = LettuceFailures.translate(nodes.name(shard), failure);
        nodes.failed(shard, failure, e.kind());
        return e;
    }

    /** The one script path: {@code EVALSHA}; on {@code NOSCRIPT}, the body with {@code EVAL}, routed the same way. */
    static CompletionStage<List<Object>> run(
            RedisScriptingAsyncCommands<byte[], byte[]> redis, Script script, byte[][] keys, byte[][] args) {
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

    /**
     * {@code reply}, once {@code WAIT} on the node's connection (the one that wrote it) says that {@code
     * redis-wait-replicas} replicas hold its writes so far; else a failure, so that the batch is answered 503 and
     * resent (its claims are then answered {@code retry}).
     */
    private CompletionStage<List<Object>> replicated(Nodes.Node node, List<Object> reply) {
        return node.commands().waitForReplication(replicas, waitMillis).thenApply(acked -> {
            if (acked < replicas) {
                throw new StoreUnavailableException(
                        FailureKind.REPLICATION,
                        "redis shard " + node.name() + ": " + acked + " of " + replicas
                                + " replicas acknowledged the claims within " + waitMillis + " ms",
                        null);
            }
            return reply;
        });
    }

    /** Completes when every server claims are written to answers a {@code PING}. */
    @Override
    public CompletionStage<Void> ping() {
        List<CompletableFuture<String>> pings = new ArrayList<>();
        for (CompletionStage<Nodes.Node> server : nodes.servers()) {
            pings.add(server.thenCompose(node -> node.commands().ping().exceptionally(e -> {
                        throw failed(node, e);
                    }))
                    .toCompletableFuture());
        }
        return CompletableFuture.allOf(pings.toArray(CompletableFuture[]::new));
    }

    private StoreUnavailableException failed(Nodes.Node node, Throwable failure) {
        if (node.shard() >= 0) {
            return failed(node.shard(), failure);
        }
        return LettuceFailures.translate(node.name(), failure);
    }

    @Override
    public List<EvictionReading> evictionPolicies() {
        return nodes.servers().stream()
                .map(server -> {
                    Nodes.Node node = RedisFailures.await(server);
                    return EvictionReadings.read(
                            (node.shard() >= 0 ? "redis shard " : "redis cluster ") + node.name(), node.commands());
                })
                .toList();
    }

    @Override
    public Subscription subscribe(byte[] channel, Consumer<byte[]> onMessage, Consumer<Boolean> listening) {
        return nodes.subscribe(channel, onMessage, listening);
    }

    @Override
    public CompletionStage<MemoryInfo> memory(int shard) {
        return nodes.node(shard)
                .thenCompose(node -> node.commands().info("memory"))
                .thenApply(MemoryInfo::parse)
                .exceptionally(e -> {
                    throw failed(shard, e);
                });
    }

    @Override
    public Map<String, Object> stats(int shard) {
        return nodes.stats(shard);
    }

    @Override
    public void close() {
        nodes.close();
        resources.shutdown(0, Connections.CLOSE_SECONDS, TimeUnit.SECONDS);
    }

    /**
     * What the adapter needs to know of a deployment's shape: where the port's shards are. {@link ShardNodes} for
     * standalone and Sentinel-managed shards (a shard is a server), {@link ClusterNodes} for a Redis Cluster (a shard
     * is a group of keys in one hash slot, served by whichever master holds it). Everything else, the script path,
     * {@code WAIT}, retries, timers and failures, is the adapter's and the same for both.
     */
    interface Nodes extends AutoCloseable {

        /** The port's shards. */
        int count();

        /** Shard {@code i}'s name for messages. */
        String name(int i);

        /** Where a call to shard {@code i} is sent: commands that reach the server holding its keys. */
        RedisScriptingAsyncCommands<byte[], byte[]> calls(int i);

        /**
         * The one server holding shard {@code i}'s keys now (on a Cluster, every key of a group hashes to the group's
         * slot), and one connection to it: a script and its {@code WAIT} go there together, since {@code WAIT} counts
         * the writes of the connection it is sent on.
         */
        CompletionStage<Node> node(int i);

        /**
         * Every server claims are written to, for a {@code PING} and the eviction policy check; a server that cannot be
         * reached fails its stage with a {@link dev.dedup.agent.store.StoreUnavailableException}.
         */
        List<CompletionStage<Node>> servers();

        /**
         * Loads {@code scripts} into every server's script cache ({@link Connections#load}), or fails naming the server
         * and what it refused.
         */
        void load(List<Script> scripts);

        /**
         * A call to shard {@code i} failed with {@code failure} ({@code kind} as the store reports it): follow the
         * shard if that says it moved.
         */
        void failed(int i, Throwable failure, FailureKind kind);

        /** Subscribes to {@code channel} wherever a {@code PUBLISH} to a shard is heard; see {@link RedisPort}. */
        RedisPort.Subscription subscribe(byte[] channel, Consumer<byte[]> onMessage, Consumer<Boolean> listening);

        /** The {@code shard} tag of shard {@code i}'s call timers. */
        String timerTag(int i);

        /** Shard {@code i}'s part of {@code /v1/stats}. */
        Map<String, Object> stats(int i);

        @Override
        void close();

        /**
         * A server: its name for messages (a shard's, or a Cluster node's), its commands, and the port's shard it is
         * ({@code -1} for a Cluster master, which serves any number of groups).
         */
        record Node(String name, RedisAsyncCommands<byte[], byte[]> commands, int shard) {}
    }
}
