package dev.dedup.agent.store.redis.access;

import dev.dedup.agent.config.RedisOptions;
import dev.dedup.agent.metrics.MetricNames;
import dev.dedup.agent.store.FailureKind;
import dev.dedup.agent.store.StoreUnavailableException;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisChannelHandler;
import io.lettuce.core.RedisConnectionStateListener;
import io.lettuce.core.RedisNoScriptException;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.SocketOptions;
import io.lettuce.core.SslOptions;
import io.lettuce.core.TimeoutOptions;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.api.async.RedisAsyncCommands;
import io.lettuce.core.pubsub.RedisPubSubAdapter;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.DefaultClientResources;
import io.lettuce.core.resource.Delay;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.lang.System.Logger.Level;
import java.net.SocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

/**
 * The {@link RedisPort} on standalone shards (or Sentinel-managed primaries, followed on failover): one
 * Lettuce client and one multiplexed connection per shard ({@link ShardLink}, which also follows a Sentinel-managed
 * primary that moved while the connection to the old one stayed silent).
 *
 * <p>Commands fail at once while a connection is down (no buffering that would answer a worker late) and
 * after the timeout; Lettuce reconnects in the background, so a shard that comes back serves again
 * without a restart. A script is called by its SHA; on {@code NOSCRIPT} (the shard restarted, failed
 * over, or was sent {@code SCRIPT FLUSH}) it is loaded on that shard and the call made once more.
 */
public final class LettuceShards implements RedisPort {

    private static final System.Logger LOG = System.getLogger(LettuceShards.class.getName());
    /** How long closing one connection may take before shutdown goes on without it. */
    static final long CLOSE_SECONDS = 2;

    private final RedisOptions options;
    private final ClientResources resources;
    private final List<ShardLink> shards;
    /** Per shard, per {@link Mode}: script call times. */
    private final Timer[][] timers;

    /**
     * Connects to every shard, or fails naming the one that cannot be reached, and loads {@code scripts}
     * so that the first batch does not pay for it.
     */
    public LettuceShards(RedisOptions options, MeterRegistry registry, List<RedisScript> scripts) {
        this.options = options;
        this.resources = clientResources();
        List<ShardLink> connected = new ArrayList<>();
        ClientOptions.Builder clientOptions = ClientOptions.builder();
        commonOptions(clientOptions, options);
        try {
            for (String uri : options.servers()) {
                ShardLink shard = ShardLink.connect(uri, options, resources, clientOptions.build());
                connected.add(shard);
                for (RedisScript script : scripts) {
                    shard.connection()
                            .async()
                            .scriptLoad(script.body())
                            .toCompletableFuture()
                            .join();
                }
            }
        } catch (RuntimeException e) {
            connected.forEach(ShardLink::close);
            resources.shutdown(0, CLOSE_SECONDS, TimeUnit.SECONDS);
            throw e;
        }
        this.shards = List.copyOf(connected);
        this.timers = new Timer[shards.size()][Mode.values().length];
        for (int s = 0; s < shards.size(); s++) {
            for (Mode mode : Mode.values()) {
                timers[s][mode.ordinal()] = Timer.builder(MetricNames.REDIS_SCRIPT)
                        .tags(MetricNames.TAG_SHARD, String.valueOf(s), "op", mode.tag())
                        .description("Script calls per shard")
                        .publishPercentileHistogram()
                        .register(registry);
            }
        }
    }

    /**
     * What every Lettuce client of the agent sets, for shards and for a Cluster alike: reconnect, but refuse
     * commands while disconnected (a batch is answered 503 rather than queued past its timeout), at most
     * {@code redis-max-in-flight} commands queued, the timeout on every command and on connecting, TCP
     * keep-alive, and TLS trusting {@code redis-ca-file} for {@code rediss://}.
     */
    static void commonOptions(ClientOptions.Builder builder, RedisOptions options) {
        builder.autoReconnect(true)
                .disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS)
                .requestQueueSize(options.maxInFlight())
                .timeoutOptions(TimeoutOptions.enabled(options.timeout()))
                .socketOptions(SocketOptions.builder()
                        .connectTimeout(options.timeout())
                        .keepAlive(true)
                        .build())
                .sslOptions(sslOptions(options));
    }

    /**
     * The agent's Lettuce resources: reconnect attempts back off from 10 ms to at most 1 s, not Lettuce's default
     * 30 s, so that a shard back from a restart or a partition is served again within a second rather than after
     * up to half a minute of 503s; an attempt a second per shard and agent costs a shard nothing.
     */
    static ClientResources clientResources() {
        return DefaultClientResources.builder()
                .reconnectDelay(Delay.exponential(
                        Duration.ofMillis(10), Duration.ofSeconds(1), 2, java.util.concurrent.TimeUnit.MILLISECONDS))
                .build();
    }

    static SslOptions sslOptions(RedisOptions options) {
        if (options.caFile() == null) {
            return SslOptions.create();
        }
        return SslOptions.builder()
                .jdkSslProvider()
                .trustManager(options.caFile().toFile())
                .build();
    }

    @Override
    public int shards() {
        return shards.size();
    }

    @Override
    public String name(int shard) {
        return shards.get(shard).name();
    }

    @Override
    public CompletionStage<List<Object>> eval(int index, RedisScript script, Mode mode, byte[][] keys, byte[][] args) {
        ShardLink shard = shards.get(index);
        long start = System.nanoTime();
        CompletionStage<List<Object>> result;
        try {
            // One connection for the script and its WAIT: WAIT counts the writes of the connection it is sent on.
            RedisAsyncCommands<byte[], byte[]> redis = shard.connection().async();
            result = evalsha(redis, script, keys, args);
            if (options.waitReplicas() > 0 && mode.waitsForReplicas()) {
                result = result.thenCompose(reply -> replicated(redis, shard.name(), options, reply));
            }
        } catch (RuntimeException e) {
            result = CompletableFuture.failedFuture(e);
        }
        Timer timer = timers[index][mode.ordinal()];
        return result.handle((reply, failure) -> {
            timer.record(System.nanoTime() - start, TimeUnit.NANOSECONDS);
            if (failure != null) {
                throw failed(shard, failure);
            }
            return reply;
        });
    }

    /** {@code failure} as the store reports it; the shard is told, in case its primary moved. */
    private static StoreUnavailableException failed(ShardLink shard, Throwable failure) {
        StoreUnavailableException e = RedisFailures.translate(shard.name(), failure);
        shard.suspect(e.kind());
        return e;
    }

    static CompletionStage<List<Object>> evalsha(
            RedisAsyncCommands<byte[], byte[]> redis, RedisScript script, byte[][] keys, byte[][] args) {
        return redis.<List<Object>>evalsha(script.sha(), ScriptOutputType.MULTI, keys, args)
                .handle((result, failure) -> {
                    if (failure == null) {
                        return CompletableFuture.completedFuture(result);
                    }
                    if (RedisFailures.unwrap(failure) instanceof RedisNoScriptException) {
                        return redis.scriptLoad(script.body())
                                .thenCompose(loaded ->
                                        redis.<List<Object>>evalsha(script.sha(), ScriptOutputType.MULTI, keys, args));
                    }
                    return CompletableFuture.<List<Object>>failedFuture(failure);
                })
                .thenCompose(stage -> stage);
    }

    /**
     * {@code reply}, once {@code WAIT} on {@code redis} (the connection that wrote it) says that {@code
     * redis-wait-replicas} replicas hold its writes so far; else a failure, so that the batch is answered 503 and
     * resent (its claims are then answered {@code retry}).
     */
    static CompletionStage<List<Object>> replicated(
            RedisAsyncCommands<byte[], byte[]> redis, String where, RedisOptions options, List<Object> reply) {
        int wanted = options.waitReplicas();
        // WAIT answers on its own a little before the command timeout would fail it.
        long waitMillis = Math.max(1, options.timeout().toMillis() * 3 / 4);
        return redis.waitForReplication(wanted, waitMillis).thenApply(acked -> {
            if (acked < wanted) {
                throw new StoreUnavailableException(
                        FailureKind.REPLICATION,
                        "redis shard " + where + ": " + acked + " of " + wanted
                                + " replicas acknowledged the claims within " + waitMillis + " ms",
                        null);
            }
            return reply;
        });
    }

    @Override
    public CompletionStage<Void> ping() {
        List<CompletableFuture<String>> pings = new ArrayList<>();
        for (ShardLink shard : shards) {
            pings.add(shard.connection().async().ping().toCompletableFuture().exceptionally(e -> {
                throw failed(shard, e);
            }));
        }
        return CompletableFuture.allOf(pings.toArray(CompletableFuture[]::new));
    }

    @Override
    public List<EvictionPolicy.Reading> evictionPolicies() {
        return shards.stream()
                .map(shard -> EvictionPolicy.read(
                        "redis shard " + shard.name(), shard.connection().async()))
                .toList();
    }

    @Override
    public Subscription subscribe(byte[] channel, Consumer<byte[]> onMessage, Runnable onLost, Runnable onBack) {
        List<AutoCloseable> channels = new ArrayList<>();
        AtomicInteger subscribed = new AtomicInteger();
        try {
            for (ShardLink shard : shards) {
                channels.add(shard.subscribe(channel, () -> new ChannelState(subscribed, onMessage, onLost, onBack)));
            }
        } catch (RuntimeException e) {
            channels.forEach(LettuceShards::closeQuietly);
            throw e;
        }
        int all = shards.size();
        return new Subscription() {
            @Override
            public boolean listening() {
                return subscribed.get() == all;
            }

            @Override
            public void close() {
                channels.forEach(LettuceShards::closeQuietly);
            }
        };
    }

    private static void closeQuietly(AutoCloseable c) {
        try {
            c.close();
        } catch (Exception e) {
            LOG.log(Level.WARNING, "release channel subscription did not close: " + e);
        }
    }

    /** One shard's channel, on one connection: counts it in {@code subscribed} while it is up. */
    static final class ChannelState extends RedisPubSubAdapter<byte[], byte[]> implements RedisConnectionStateListener {
        private final AtomicInteger subscribed;
        private final Consumer<byte[]> onMessage;
        private final Runnable onLost;
        private final Runnable onBack;
        private boolean up;
        private volatile boolean closed;

        ChannelState(AtomicInteger subscribed, Consumer<byte[]> onMessage, Runnable onLost, Runnable onBack) {
            this.subscribed = subscribed;
            this.onMessage = onMessage;
            this.onLost = onLost;
            this.onBack = onBack;
        }

        @Override
        public void message(byte[] channel, byte[] payload) {
            onMessage.accept(payload);
        }

        @Override
        public synchronized void subscribed(byte[] channel, long count) {
            if (!up) {
                onBack.run();
                up = true;
                subscribed.incrementAndGet();
            }
        }

        @Override
        public void onRedisDisconnected(RedisChannelHandler<?, ?> connection) {
            synchronized (this) {
                if (up) {
                    up = false;
                    subscribed.decrementAndGet();
                }
            }
            if (!closed) {
                onLost.run();
            }
        }

        /** From now on a dropped connection is the subscription's own close, not a loss. */
        void close() {
            closed = true;
        }

        @Override
        public void onRedisConnected(RedisChannelHandler<?, ?> connection, SocketAddress address) {
            // Lettuce subscribes again by itself; subscribed() counts the channel when it is.
        }
    }

    @Override
    public CompletionStage<MemoryInfo> memory(int index) {
        ShardLink shard = shards.get(index);
        return shard.connection()
                .async()
                .info("memory")
                .thenApply(MemoryInfo::parse)
                .exceptionally(e -> {
                    throw failed(shard, e);
                });
    }

    @Override
    public Map<String, Object> stats(int index) {
        Map<String, Object> s = new LinkedHashMap<>();
        s.put("shard", index);
        s.put("uri", shards.get(index).name());
        s.put("connected", shards.get(index).connection().isOpen());
        return s;
    }

    @Override
    public void close() {
        shards.forEach(ShardLink::close);
        resources.shutdown(0, CLOSE_SECONDS, TimeUnit.SECONDS);
    }

    /**
     * Closes {@code connection}, waiting {@value #CLOSE_SECONDS} seconds at most: a close once waited
     * forever on a connection whose shard was stopped at the same moment, which left SIGTERM to a SIGKILL.
     */
    static void closeWithin(StatefulConnection<?, ?> connection, String what) {
        try {
            connection.closeAsync().get(CLOSE_SECONDS, TimeUnit.SECONDS);
        } catch (TimeoutException | ExecutionException e) {
            LOG.log(
                    Level.WARNING,
                    what + " did not close within " + CLOSE_SECONDS + " s (" + e + "); shutting down anyway");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
