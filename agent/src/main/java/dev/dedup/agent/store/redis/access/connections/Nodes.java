package dev.dedup.agent.store.redis.access.connections;

import dev.dedup.agent.store.FailureKind;
import dev.dedup.agent.store.redis.access.RedisPort;
import dev.dedup.agent.store.redis.access.RedisScript;
import io.lettuce.core.api.async.RedisAsyncCommands;
import io.lettuce.core.api.async.RedisScriptingAsyncCommands;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionStage;
import java.util.function.Consumer;

/**
 * What {@link LettuceRedis} needs to know of a deployment's shape: where the port's shards are. {@link ShardNodes}
 * for standalone and Sentinel-managed shards (a shard is a server), {@link ClusterNodes} for a Redis Cluster (a
 * shard is a group of keys in one hash slot, served by whichever master holds it). Everything else, the script path,
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
     * Loads {@code scripts} into every server's script cache ({@link LettuceRedis#load}), or fails naming the server
     * and what it refused.
     */
    void load(List<RedisScript> scripts);

    /**
     * A call to shard {@code i} failed with {@code failure} ({@code kind} as the store reports it): follow the shard
     * if that says it moved.
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
