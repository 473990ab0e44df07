package dev.dedup.agent.store.redis.access.connections;

import dev.dedup.agent.config.RedisOptions;
import dev.dedup.agent.store.FailureKind;
import dev.dedup.agent.store.redis.access.RedisFailures;
import dev.dedup.agent.store.redis.access.RedisKeys;
import dev.dedup.agent.store.redis.access.RedisPort;
import dev.dedup.agent.store.redis.access.RedisPort.Script;
import io.lettuce.core.RedisConnectionStateListener;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.async.RedisScriptingAsyncCommands;
import io.lettuce.core.cluster.ClusterClientOptions;
import io.lettuce.core.cluster.ClusterTopologyRefreshOptions;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;
import io.lettuce.core.cluster.pubsub.StatefulRedisClusterPubSubConnection;
import io.lettuce.core.codec.ByteArrayCodec;
import io.lettuce.core.pubsub.RedisPubSubAdapter;
import io.lettuce.core.resource.ClientResources;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;

/**
 * A Redis Cluster: the port's shards are {@code --redis-cluster-groups} groups, each one hash slot ({@link
 * RedisKeys#clustered}), reached through one Lettuce cluster connection, which sends each call to the master of
 * its first key's slot and follows {@code MOVED} and {@code ASK} redirections (a reshard) by itself.
 *
 * <p>The client refreshes its view of the cluster every {@value #REFRESH_SECONDS} seconds and whenever a
 * redirection, an unknown node or repeated reconnects say it changed, so after a failover calls reach the
 * promoted replica without a restart. A call that still meets a redirection (one pinned to a node with its
 * {@code WAIT}, whose node the view gave) has the view refreshed at once.
 */
final class ClusterNodes implements LettuceRedis.Nodes {

    static final int REFRESH_SECONDS = 2;

    private final String name;
    private final int groups;
    private final RedisClusterClient client;
    private final StatefulRedisClusterConnection<byte[], byte[]> connection;
    /** A refresh of the client's view of the cluster asked for by a redirection, not yet done. */
    private final AtomicBoolean refreshing = new AtomicBoolean();

    private ClusterNodes(
            String name,
            int groups,
            RedisClusterClient client,
            StatefulRedisClusterConnection<byte[], byte[]> connection) {
        this.name = name;
        this.groups = groups;
        this.client = client;
        this.connection = connection;
    }

    /** Connects to the cluster by any of the nodes its URI names, or fails saying why. */
    static ClusterNodes connect(
            RedisOptions options, ClientResources resources, ClusterClientOptions.Builder clientOptions) {
        String name = RedisOptions.redact(options.uris().get(0));
        List<RedisURI> seeds;
        try {
            seeds = seeds(options.uris().get(0), options.timeout());
        } catch (RuntimeException e) {
            // The parser's message quotes the URI, password and all: it is scrubbed, and not chained.
            throw new IllegalStateException("redis cluster " + name + ": not a cluster URI: "
                    + RedisOptions.scrub(e.getMessage(), options.uris().get(0)));
        }
        RedisClusterClient client = RedisClusterClient.create(resources, seeds);
        client.setOptions(clientOptions
                .topologyRefreshOptions(ClusterTopologyRefreshOptions.builder()
                        .enablePeriodicRefresh(Duration.ofSeconds(REFRESH_SECONDS))
                        .enableAllAdaptiveRefreshTriggers()
                        .adaptiveRefreshTriggersTimeout(Duration.ofMillis(500))
                        .refreshTriggersReconnectAttempts(2)
                        .build())
                .build());
        try {
            return new ClusterNodes(name, options.clusterGroups(), client, client.connect(ByteArrayCodec.INSTANCE));
        } catch (RuntimeException e) {
            client.shutdown(0, Connections.CLOSE_SECONDS, TimeUnit.SECONDS);
            throw new IllegalStateException(
                    "redis cluster " + name + ": cannot connect: " + RedisFailures.rootMessage(e), e);
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
    public int count() {
        return groups;
    }

    @Override
    public String name(int group) {
        return name + " group " + group;
    }

    @Override
    public RedisScriptingAsyncCommands<byte[], byte[]> calls(int group) {
        return connection.async();
    }

    /** The master serving the group's slot in the client's view of the cluster. */
    @Override
    public CompletionStage<Node> node(int group) {
        RedisClusterNode node = connection.getPartitions().getMasterBySlot(RedisKeys.groupSlot(group));
        if (node == null) {
            return CompletableFuture.failedFuture(
                    new IllegalStateException(name(group) + ": no master serves its slot"));
        }
        String where = name(group) + " on " + address(node);
        return connection.getConnectionAsync(node.getNodeId()).thenApply(c -> new Node(where, c.async(), group));
    }

    /** The masters serving slots, as the client last saw the cluster: a group's slot may move to any of them. */
    @Override
    public List<CompletionStage<Node>> servers() {
        List<CompletionStage<Node>> masters = new ArrayList<>();
        for (RedisClusterNode node : connection.getPartitions()) {
            if (node.is(RedisClusterNode.NodeFlag.UPSTREAM) && !node.getSlots().isEmpty()) {
                String where = name + " node " + address(node);
                masters.add(connection
                        .getConnectionAsync(node.getNodeId())
                        .<Node>thenApply(c -> new Node(where, c.async(), -1))
                        .exceptionally(e -> {
                            throw LettuceFailures.translate(where, e);
                        }));
            }
        }
        return masters;
    }

    private static String address(RedisClusterNode node) {
        return node.getUri().getHost() + ":" + node.getUri().getPort();
    }

    /** The cluster connection sends {@code SCRIPT LOAD} to every node. */
    @Override
    public void load(List<Script> scripts) {
        try {
            Connections.load(connection.async(), scripts);
        } catch (RuntimeException e) {
            throw new IllegalStateException(
                    "redis cluster " + name + ": cannot load the scripts: " + RedisFailures.rootMessage(e), e);
        }
    }

    @Override
    public void failed(int group, Throwable failure, FailureKind kind) {
        if (isRedirection(failure) && refreshing.compareAndSet(false, true)) {
            client.refreshPartitionsAsync().whenComplete((done, e) -> refreshing.set(false));
        }
    }

    private static boolean isRedirection(Throwable failure) {
        RedisFailures.ReplyCode code = LettuceFailures.code(failure);
        return code == RedisFailures.ReplyCode.MOVED || code == RedisFailures.ReplyCode.ASK;
    }

    /**
     * Subscribes on one node with the cluster's pub/sub connection: a classic {@code PUBLISH} reaches every
     * node of a cluster, so one subscription hears every group's releases. When its node goes, the connection
     * is lost ({@code onLost}) and comes back on another node of the cluster.
     */
    @Override
    public RedisPort.Subscription subscribe(byte[] channel, Consumer<byte[]> onMessage, Consumer<Boolean> listening) {
        ChannelSubscription subscription = new ChannelSubscription(1, listening);
        StatefulRedisClusterPubSubConnection<byte[], byte[]> c = client.connectPubSub(ByteArrayCodec.INSTANCE);
        ChannelState state = new ChannelState(subscription, onMessage);
        try {
            c.addListener((RedisPubSubAdapter<byte[], byte[]>) state);
            c.addListener((RedisConnectionStateListener) state);
            RedisFailures.await(c.async().subscribe(channel));
        } catch (RuntimeException e) {
            Connections.closeWithin(c, "release channel subscription");
            throw e;
        }
        subscription.add(() -> {
            state.close();
            Connections.closeWithin(c, "release channel subscription");
        });
        return subscription;
    }

    /** Per operation over all groups: per group they would multiply the histograms. */
    @Override
    public String timerTag(int group) {
        return "cluster";
    }

    @Override
    public Map<String, Object> stats(int group) {
        Map<String, Object> s = new LinkedHashMap<>();
        int slot = RedisKeys.groupSlot(group);
        s.put("shard", group);
        s.put("uri", name);
        s.put("slot", slot);
        RedisClusterNode node = connection.getPartitions().getMasterBySlot(slot);
        s.put("node", node == null ? null : address(node));
        s.put("connected", connection.isOpen());
        return s;
    }

    @Override
    public void close() {
        Connections.closeWithin(connection, "redis cluster " + name + ": connection");
        client.shutdown(0, Connections.CLOSE_SECONDS, TimeUnit.SECONDS);
    }
}
