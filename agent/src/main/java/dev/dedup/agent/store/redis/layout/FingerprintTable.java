package dev.dedup.agent.store.redis.layout;

import dev.dedup.agent.metrics.MetricNames;
import dev.dedup.agent.store.ClaimPolicy;
import dev.dedup.agent.store.redis.access.RedisKeys;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * One window's fingerprint table: its name in Redis ({@code f<window ms>}, or {@code s<window ms>} when the window
 * slides), its keys on every shard, and per shard the {@link TableState} this agent last saw, by which it addresses
 * the table's buckets.
 */
final class FingerprintTable {

    final String name;
    final boolean sliding;
    final long windowMillis;
    final byte[] nameArg;
    /** Per shard, the key of the table's state: a hash of level, split and claims. */
    final byte[][] stateKeys;
    /** Per shard, the key of the set of tables the shard holds. */
    final byte[][] setKeys;
    /** Per shard, what every bucket key of the table starts with; the bucket's number follows in 4 bytes. */
    final byte[][] bucketHeads;

    final AtomicReferenceArray<TableState> states;
    /** Per shard, whether a split or merge of this agent's is under way. */
    final AtomicBoolean[] resizing;

    FingerprintTable(String name, int shards, RedisKeys keys, int baseBits, MeterRegistry registry) {
        this.name = name;
        this.sliding = name.charAt(0) == 's';
        this.windowMillis = Long.parseLong(name.substring(1));
        this.nameArg = name.getBytes(StandardCharsets.US_ASCII);
        this.stateKeys = new byte[shards][];
        this.setKeys = new byte[shards][];
        this.bucketHeads = new byte[shards][];
        this.states = new AtomicReferenceArray<>(shards);
        this.resizing = new AtomicBoolean[shards];
        for (int s = 0; s < shards; s++) {
            stateKeys[s] = keys.tableState(s, name);
            setKeys[s] = keys.tables(s);
            bucketHeads[s] = keys.bucketHead(s, name);
            states.set(s, TableState.EMPTY);
            resizing[s] = new AtomicBoolean();
            int shard = s;
            Gauge.builder(
                            MetricNames.REDIS_TABLE_BUCKETS,
                            () -> states.get(shard).buckets(baseBits))
                    .tags(MetricNames.TAG_SHARD, String.valueOf(s), "table", name)
                    .description("Buckets of a fingerprint table, as this agent last saw it")
                    .register(registry);
            Gauge.builder(
                            MetricNames.REDIS_TABLE_CLAIMS,
                            () -> states.get(shard).claims())
                    .tags(MetricNames.TAG_SHARD, String.valueOf(s), "table", name)
                    .description("Records a fingerprint table holds, as this agent last saw it")
                    .register(registry);
        }
    }

    /** The table of claims kept under {@code policy}: {@code f<window ms>}, or {@code s<window ms>} when it slides. */
    static String nameOf(ClaimPolicy policy) {
        return (policy.sliding() ? "s" : "f") + policy.windowMillis();
    }

    /** Bucket {@code bucket}'s key on {@code shard}. */
    byte[] bucketKey(int shard, long bucket) {
        byte[] head = bucketHeads[shard];
        byte[] key = Arrays.copyOf(head, head.length + 4);
        for (int i = 0; i < 4; i++) {
            key[head.length + i] = (byte) (bucket >>> (24 - 8 * i));
        }
        return key;
    }

    /** {@code '1'} when the window slides, else {@code '0'}: how the scripts are told. */
    byte[] slidingArg() {
        return new byte[] {(byte) (sliding ? '1' : '0')};
    }
}
