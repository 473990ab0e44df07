package dev.dedup.agent.store.redis.access.connections;

import dev.dedup.agent.config.RedisOptions;
import dev.dedup.agent.store.FailureKind;
import dev.dedup.agent.store.redis.access.Housekeeping;
import dev.dedup.agent.store.redis.access.RedisFailures;
import dev.dedup.agent.store.redis.access.RedisPort;
import dev.dedup.agent.store.redis.access.RedisPort.Script;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisChannelHandler;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisConnectionStateListener;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.async.RedisScriptingAsyncCommands;
import io.lettuce.core.codec.ByteArrayCodec;
import io.lettuce.core.pubsub.RedisPubSubAdapter;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import io.lettuce.core.resource.ClientResources;
import java.lang.System.Logger.Level;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * Standalone shards, or Sentinel-managed primaries followed on failover: shard {@code i} is the {@code i}-th
 * server of {@code --redis}, one multiplexed connection each ({@link Link}), with its release-channel subscriptions.
 *
 * <p>A Sentinel-managed shard ({@code redis-sentinel://}, {@code rediss-sentinel://}) is connected, and reconnected, to the primary that
 * {@link SentinelMaster} names. Lettuce reconnects when a connection breaks, which is how a failover is followed when
 * the old primary dies or Sentinel demotes it and closes its clients. A partition breaks nothing: the connection to
 * the old primary stays open and silent, and its commands time out. So a call that times out, finds the shard
 * disconnected, or is refused as a replica's or for want of replicas ({@link #failed}) has the sentinels asked
 * again; when they name another primary than the one the connection reached, a new connection is made to it and
 * replaces the old one, and the subscriptions move with it (the near-cache hears the old channel go, and is cleared).
 * Calls already on the old connection fail and are answered 503. The sentinels are asked at most every
 * {@value #CHECK_SPACING_MILLIS} ms, one question at a time.
 */
final class ShardNodes implements LettuceRedis.Nodes {

    private static final System.Logger LOG = System.getLogger(ShardNodes.class.getName());
    /** Shortest time between two questions to one shard's sentinels. */
    static final long CHECK_SPACING_MILLIS = 200;

    private final List<Link> shards;

    private ShardNodes(List<Link> shards) {
        this.shards = List.copyOf(shards);
    }

    /** Connects to every shard, or fails naming the one that cannot be reached. */
    static ShardNodes connect(
            RedisOptions options, ClientResources resources, ClientOptions clientOptions, LongSupplier ticker) {
        List<Link> connected = new ArrayList<>();
        try {
            for (String uri : options.servers()) {
                connected.add(Link.connect(uri, options, resources, clientOptions, ticker));
            }
        } catch (RuntimeException e) {
            connected.forEach(Link::close);
            throw e;
        }
        return new ShardNodes(connected);
    }

    @Override
    public int count() {
        return shards.size();
    }

    @Override
    public String name(int i) {
        return shards.get(i).name();
    }

    @Override
    public RedisScriptingAsyncCommands<byte[], byte[]> calls(int i) {
        return shards.get(i).connection().async();
    }

    @Override
    public CompletionStage<Node> node(int i) {
        return CompletableFuture.completedFuture(server(i));
    }

    private Node server(int i) {
        return new Node(shards.get(i).name(), shards.get(i).connection().async(), i);
    }

    @Override
    public List<CompletionStage<Node>> servers() {
        List<CompletionStage<Node>> servers = new ArrayList<>();
        for (int i = 0; i < shards.size(); i++) {
            servers.add(node(i));
        }
        return servers;
    }

    @Override
    public void load(List<Script> scripts) {
        for (Link shard : shards) {
            try {
                Connections.load(shard.connection().async(), scripts);
            } catch (RuntimeException e) {
                throw new IllegalStateException(
                        "redis shard " + shard.name() + ": cannot load the scripts: " + RedisFailures.rootMessage(e),
                        e);
            }
        }
    }

    /** The shard is told, in case its primary moved. */
    @Override
    public void failed(int i, Throwable failure, FailureKind kind) {
        shards.get(i).suspect(kind);
    }

    @Override
    public RedisPort.Subscription subscribe(byte[] channel, Consumer<byte[]> onMessage, Consumer<Boolean> listening) {
        ChannelSubscription subscription = new ChannelSubscription(shards.size(), listening);
        try {
            for (Link shard : shards) {
                subscription.add(shard.subscribe(channel, () -> new ChannelState(subscription, onMessage)));
            }
        } catch (RuntimeException e) {
            subscription.close();
            throw e;
        }
        return subscription;
    }

    @Override
    public String timerTag(int i) {
        return String.valueOf(i);
    }

    @Override
    public Map<String, Object> stats(int i) {
        Map<String, Object> s = new LinkedHashMap<>();
        s.put("shard", i);
        s.put("uri", shards.get(i).name());
        s.put("connected", shards.get(i).connection().isOpen());
        return s;
    }

    @Override
    public void close() {
        shards.forEach(Link::close);
    }

    /** One shard's client and connection, and its release-channel subscriptions. */
    private static final class Link implements AutoCloseable {

        private final String name;
        private final RedisURI uri;
        private final RedisClient client;
        private final SentinelMaster sentinels;
        private final List<Channel> channels = new CopyOnWriteArrayList<>();
        private final AtomicBoolean checking = new AtomicBoolean();
        private volatile long nextCheckNanos;
        /** Nanoseconds, to space the questions to the sentinels ({@link Housekeeping#ticker}). */
        private final LongSupplier ticker;

        private volatile StatefulRedisConnection<byte[], byte[]> connection;
        /** Where the command connection last connected (a reconnect may take it elsewhere). */
        private volatile SocketAddress connectedTo;

        private Link(String name, RedisURI uri, RedisClient client, SentinelMaster sentinels, LongSupplier ticker) {
            this.ticker = ticker;
            this.nextCheckNanos = ticker.getAsLong();
            this.name = name;
            this.uri = uri;
            this.client = client;
            this.sentinels = sentinels;
            client.addListener(new RedisConnectionStateListener() {
                @Override
                public void onRedisConnected(RedisChannelHandler<?, ?> handler, SocketAddress address) {
                    if (!(handler instanceof StatefulRedisPubSubConnection)) {
                        connectedTo = address;
                    }
                }
            });
        }

        /** Connects to the shard {@code uri}, or fails naming it. */
        static Link connect(
                String uri,
                RedisOptions options,
                ClientResources resources,
                ClientOptions clientOptions,
                LongSupplier ticker) {
            String name = RedisOptions.redact(uri);
            RedisURI redisUri;
            try {
                redisUri = RedisURI.create(uri);
            } catch (RuntimeException e) {
                // The parser's message quotes the URI, password and all: it is scrubbed, and not chained.
                throw new IllegalStateException(
                        "redis shard " + name + ": not a Redis URI: " + RedisOptions.scrub(e.getMessage(), uri));
            }
            redisUri.setTimeout(options.timeout());
            SentinelMaster sentinels = SentinelMaster.managed(redisUri)
                    ? new SentinelMaster(redisUri, uri, name, resources, clientOptions, options.timeout())
                    : null;
            RedisClient client = sentinels == null
                    ? new AsyncRedisClient(resources, redisUri)
                    : new SentinelMaster.Client(resources, redisUri, sentinels);
            client.setOptions(clientOptions);
            Link link = new Link(name, redisUri, client, sentinels, ticker);
            try {
                link.connection = client.connect(ByteArrayCodec.INSTANCE);
                return link;
            } catch (RuntimeException e) {
                link.close();
                throw new IllegalStateException(
                        "redis shard " + name + ": cannot connect: " + RedisFailures.rootMessage(e), e);
            }
        }

        /** The shard's name for messages: its URI without credentials. */
        String name() {
            return name;
        }

        /** The command connection now; take it once per call, so that a script and its {@code WAIT} share it. */
        StatefulRedisConnection<byte[], byte[]> connection() {
            return connection;
        }

        /**
         * A call failed with {@code kind}: for a Sentinel-managed shard, when it may mean that the primary moved, ask
         * the sentinels where it is and follow it there.
         */
        void suspect(FailureKind kind) {
            if (sentinels == null
                    || !(kind == FailureKind.TIMEOUT
                            || kind == FailureKind.CONNECTION
                            || kind == FailureKind.READONLY
                            || kind == FailureKind.REPLICATION)) {
                return;
            }
            long now = ticker.getAsLong();
            if (now - nextCheckNanos < 0 || !checking.compareAndSet(false, true)) {
                return;
            }
            nextCheckNanos = now + TimeUnit.MILLISECONDS.toNanos(CHECK_SPACING_MILLIS);
            sentinels
                    .primary()
                    .thenCompose(primary ->
                            primary.equals(connectedTo) ? CompletableFuture.completedFuture(null) : moveTo(primary))
                    .whenComplete((done, failure) -> {
                        checking.set(false);
                        if (failure != null) {
                            LOG.log(Level.DEBUG, "redis shard " + name + ": asking its sentinels failed: " + failure);
                        }
                    });
        }

        private CompletionStage<Void> moveTo(SocketAddress primary) {
            SocketAddress was = connectedTo;
            return client.connectAsync(ByteArrayCodec.INSTANCE, uri).thenAccept(fresh -> {
                StatefulRedisConnection<byte[], byte[]> old = connection;
                connection = fresh;
                LOG.log(
                        Level.WARNING,
                        "redis shard " + name + ": its sentinels name " + address(primary)
                                + " as the primary, the connection was to " + address(was) + "; moved there");
                old.closeAsync();
                channels.forEach(Channel::reopen);
            });
        }

        private static String address(SocketAddress a) {
            return a instanceof InetSocketAddress i ? i.getHostString() + ":" + i.getPort() : String.valueOf(a);
        }

        /**
         * Subscribes to {@code channel} on the shard, each connection with a fresh listener from {@code states}; blocks
         * until subscribed.
         */
        AutoCloseable subscribe(byte[] channel, Supplier<ChannelState> states) {
            Channel c = new Channel(channel, states);
            c.connection = RedisFailures.await(c.open());
            channels.add(c);
            return c;
        }

        /** A subscription to one channel, moved with the shard's primary. */
        private final class Channel implements AutoCloseable {
            private final byte[] channel;
            private final Supplier<ChannelState> states;
            private volatile StatefulRedisPubSubConnection<byte[], byte[]> connection;
            private volatile ChannelState state;
            private volatile boolean closed;

            Channel(byte[] channel, Supplier<ChannelState> states) {
                this.channel = channel;
                this.states = states;
            }

            CompletionStage<StatefulRedisPubSubConnection<byte[], byte[]>> open() {
                return client.connectPubSubAsync(ByteArrayCodec.INSTANCE, uri).thenCompose(c -> {
                    ChannelState state = states.get();
                    this.state = state;
                    c.addListener((RedisPubSubAdapter<byte[], byte[]>) state);
                    c.addListener((RedisConnectionStateListener) state);
                    return c.async().subscribe(channel).thenApply(ok -> c).whenComplete((ok, e) -> {
                        if (e != null) {
                            c.closeAsync();
                        }
                    });
                });
            }

            /**
             * Closes the connection (its listener says the channel was lost), then subscribes anew, trying again every
             * second until it is.
             */
            void reopen() {
                connection.closeAsync().whenComplete((ok, e) -> resubscribe());
            }

            private void resubscribe() {
                open().whenComplete((c, failure) -> {
                    if (failure == null && closed) {
                        c.closeAsync();
                    } else if (failure == null) {
                        connection = c;
                    } else if (!closed) {
                        LOG.log(
                                Level.WARNING,
                                "redis shard " + name + ": cannot subscribe again (" + failure + "); trying again");
                        try {
                            client.getResources().eventExecutorGroup().schedule(this::resubscribe, 1, TimeUnit.SECONDS);
                        } catch (RejectedExecutionException closing) {
                            // the store is closing
                        }
                    }
                });
            }

            @Override
            public void close() {
                closed = true;
                ChannelState current = state;
                if (current != null) {
                    current.close();
                }
                channels.remove(this);
                StatefulRedisPubSubConnection<byte[], byte[]> c = connection;
                if (c != null) {
                    Connections.closeWithin(c, "release channel subscription");
                }
            }
        }

        @Override
        public void close() {
            channels.forEach(Channel::close);
            if (connection != null) {
                Connections.closeWithin(connection, "redis shard " + name + ": connection");
            }
            client.shutdown(0, Connections.CLOSE_SECONDS, TimeUnit.SECONDS);
            if (sentinels != null) {
                sentinels.close();
            }
        }
    }
}
