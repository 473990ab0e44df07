package dev.dedup.agent.testing;

import dev.dedup.agent.store.redis.access.EvictionReading;
import dev.dedup.agent.store.redis.access.MemoryInfo;
import dev.dedup.agent.store.redis.access.RedisPort;
import dev.dedup.agent.store.redis.access.RedisPort.Script;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Consumer;

/**
 * A port for unit tests, with no server behind it: {@code shards} shards named {@code shard-0}, {@code shard-1},
 * ...; each script call is recorded and completes only when the test completes its {@link Sent#reply()}. Pings,
 * subscriptions and the memory readings are not served.
 */
public final class FakeRedisPort implements RedisPort {

    /** A script call as the port received it, and the reply the caller waits on. */
    public record Sent(int shard, Op op, byte[][] keys, byte[][] args, CompletableFuture<List<Object>> reply) {}

    private final int shards;
    private final List<Sent> sent = new ArrayList<>();

    public FakeRedisPort(int shards) {
        this.shards = shards;
    }

    @Override
    public int shards() {
        return shards;
    }

    @Override
    public String name(int shard) {
        return "shard-" + shard;
    }

    @Override
    public synchronized CompletionStage<List<Object>> eval(
            int shard, Script script, Op op, byte[][] keys, byte[][] args) {
        Sent s = new Sent(shard, op, keys, args, new CompletableFuture<>());
        sent.add(s);
        return s.reply();
    }

    /** The {@code i}th call received, counting from 0. */
    public synchronized Sent sent(int i) {
        return sent.get(i);
    }

    /** How many calls were received. */
    public synchronized int count() {
        return sent.size();
    }

    @Override
    public CompletionStage<Void> ping() {
        throw new UnsupportedOperationException();
    }

    @Override
    public Subscription subscribe(byte[] channel, Consumer<byte[]> onMessage, Consumer<Boolean> listening) {
        throw new UnsupportedOperationException();
    }

    @Override
    public List<EvictionReading> evictionPolicies() {
        throw new UnsupportedOperationException();
    }

    @Override
    public CompletionStage<MemoryInfo> memory(int shard) {
        throw new UnsupportedOperationException();
    }

    @Override
    public Map<String, Object> stats(int shard) {
        return Map.of();
    }

    @Override
    public void close() {}
}
