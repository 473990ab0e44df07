package dev.dedup.agent.store.redis.topology;

import dev.dedup.agent.store.redis.access.RedisPort;
import dev.dedup.agent.store.redis.access.RedisPort.Op;
import dev.dedup.agent.store.redis.access.RedisPort.Script;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CompletionStage;

/**
 * The calls of {@code topology.lua}, which reads, stamps or advances a record under one key of one shard: the
 * shards' topology records ({@link Topology}) and the record of where each namespace keeps its claims. Each
 * completes with the record the shard holds after the call, or null when it holds none.
 *
 * <p>{@code KEYS[1]} is the record's key. {@code ARGV[1]} is empty to read, else the record to write when the
 * shard holds none; {@code ARGV[2]}, when there is one, a record to replace by {@code ARGV[1]}: the shard's record
 * before a declared change of the shard list, advanced at the cut-over. The script is not guarded: it is what the
 * guard's record is written with.
 */
public final class RecordCall {

    private static final byte[] READ = new byte[0];

    private RecordCall() {}

    /** What {@code shard} holds under {@code key}. */
    public static CompletionStage<String> read(RedisPort port, int shard, byte[] key) {
        return call(port, shard, key, READ);
    }

    /** Writes {@code record} under {@code key} unless {@code shard} holds one already; what it holds after. */
    public static CompletionStage<String> stamp(RedisPort port, int shard, byte[] key, byte[] record) {
        return call(port, shard, key, record);
    }

    /** Replaces {@code from} by {@code to} under {@code key}, or stamps {@code to} where there is none. */
    static CompletionStage<String> advance(RedisPort port, int shard, byte[] key, byte[] to, byte[] from) {
        return call(port, shard, key, to, from);
    }

    private static CompletionStage<String> call(RedisPort port, int shard, byte[] key, byte[]... args) {
        return port.eval(shard, Script.TOPOLOGY, Op.TOPOLOGY, new byte[][] {key}, args)
                .thenApply(RecordCall::held);
    }

    private static String held(List<Object> reply) {
        Object value = reply.isEmpty() ? null : reply.get(0);
        return value instanceof byte[] b && b.length > 0 ? new String(b, StandardCharsets.US_ASCII) : null;
    }
}
