package dev.dedup.agent.store.redis.topology;

import dev.dedup.agent.store.FailureKind;
import dev.dedup.agent.store.StoreUnavailableException;
import dev.dedup.agent.store.redis.access.EvictionReading;
import dev.dedup.agent.store.redis.access.MemoryInfo;
import dev.dedup.agent.store.redis.access.RedisPort;
import dev.dedup.agent.store.redis.access.RedisPort.Script;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionStage;
import java.util.function.Consumer;
import java.util.function.IntConsumer;
import java.util.function.IntFunction;

/**
 * A {@link RedisPort} whose calls of a {@link Script#guarded() guarded} script (one that starts with {@code
 * guard.lua}) carry the shard's topology record key last among the keys, {@code KEYS[#KEYS]}, and the record the
 * shard is expected to hold last among the arguments, {@code ARGV[#ARGV]}: the guard fails the call with {@code
 * DEDUPTOPOLOGY}, having read and written nothing else, when the shard holds another record or none. Every call so
 * refused (a {@link StoreUnavailableException} of kind {@link FailureKind#TOPOLOGY}) is told to {@code refused}
 * with its shard. Everything else goes to the port as it is.
 */
public final class GuardedPort implements RedisPort {

    private final RedisPort port;
    /** Per shard, the key of its record. */
    private final byte[][] key;

    /** Per shard, the record it must hold, when that never changes; else null, and {@link #expected} says. */
    private final byte[][] fixed;

    private final IntFunction<byte[]> expected;
    private final IntConsumer refused;

    private GuardedPort(
            RedisPort port, byte[][] key, byte[][] fixed, IntFunction<byte[]> expected, IntConsumer refused) {
        this.port = port;
        this.key = key.clone();
        this.fixed = fixed;
        this.expected = expected;
        this.refused = refused;
    }

    /** {@code expected}: the record shard {@code s} must hold now; {@code refused}: told of each refused call. */
    public static GuardedPort following(
            RedisPort port, byte[][] key, IntFunction<byte[]> expected, IntConsumer refused) {
        return new GuardedPort(port, key, null, expected, refused);
    }

    /**
     * {@code expected}: per shard, the record it must hold, the same for the port's life (no cut-over to make);
     * {@code refused}: told of each refused call.
     */
    public static GuardedPort fixed(RedisPort port, byte[][] key, byte[][] expected, IntConsumer refused) {
        return new GuardedPort(port, key, expected.clone(), null, refused);
    }

    @Override
    public CompletionStage<List<Object>> eval(int shard, Script script, Op op, byte[][] keys, byte[][] args) {
        if (!script.guarded()) {
            return port.eval(shard, script, op, keys, args);
        }
        byte[][] k = Arrays.copyOf(keys, keys.length + 1);
        k[keys.length] = key[shard];
        byte[][] a = Arrays.copyOf(args, args.length + 1);
        a[args.length] = fixed != null ? fixed[shard] : expected.apply(shard);
        return port.eval(shard, script, op, k, a).whenComplete((reply, failure) -> {
            if (failure != null && refusedByGuard(failure)) {
                refused.accept(shard);
            }
        });
    }

    /** Whether {@code failure}, or a cause of it, is the guard's refusal. */
    static boolean refusedByGuard(Throwable failure) {
        for (Throwable c = failure; c != null; c = c.getCause()) {
            if (c instanceof StoreUnavailableException u && u.kind() == FailureKind.TOPOLOGY) {
                return true;
            }
        }
        return false;
    }

    @Override
    public int shards() {
        return port.shards();
    }

    @Override
    public String name(int shard) {
        return port.name(shard);
    }

    @Override
    public CompletionStage<Void> ping() {
        return port.ping();
    }

    @Override
    public Subscription subscribe(byte[] channel, Consumer<byte[]> onMessage, Consumer<Boolean> listening) {
        return port.subscribe(channel, onMessage, listening);
    }

    @Override
    public List<EvictionReading> evictionPolicies() {
        return port.evictionPolicies();
    }

    @Override
    public CompletionStage<MemoryInfo> memory(int shard) {
        return port.memory(shard);
    }

    @Override
    public Map<String, Object> stats(int shard) {
        return port.stats(shard);
    }

    @Override
    public void close() {
        port.close();
    }
}
