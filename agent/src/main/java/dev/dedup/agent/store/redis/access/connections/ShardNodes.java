package dev.dedup.agent.store.redis.access.connections;

import dev.dedup.agent.config.RedisOptions;
import dev.dedup.agent.store.FailureKind;
import dev.dedup.agent.store.redis.access.RedisFailures;
import dev.dedup.agent.store.redis.access.RedisPort;
import dev.dedup.agent.store.redis.access.RedisScript;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.api.async.RedisScriptingAsyncCommands;
import io.lettuce.core.resource.ClientResources;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Consumer;
import java.util.function.LongSupplier;

/**
 * Standalone shards, or Sentinel-managed primaries followed on failover: shard {@code i} is the {@code i}-th
 * server of {@code --redis}, one multiplexed connection each ({@link ShardLink}).
 */
final class ShardNodes implements Nodes {

    private final List<ShardLink> shards;

    private ShardNodes(List<ShardLink> shards) {
        this.shards = List.copyOf(shards);
    }

    /** Connects to every shard, or fails naming the one that cannot be reached. */
    static ShardNodes connect(
            RedisOptions options, ClientResources resources, ClientOptions clientOptions, LongSupplier ticker) {
        List<ShardLink> connected = new ArrayList<>();
        try {
            for (String uri : options.servers()) {
                connected.add(ShardLink.connect(uri, options, resources, clientOptions, ticker));
            }
        } catch (RuntimeException e) {
            connected.forEach(ShardLink::close);
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
    public void load(List<RedisScript> scripts) {
        for (ShardLink shard : shards) {
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
            for (ShardLink shard : shards) {
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
        shards.forEach(ShardLink::close);
    }
}
