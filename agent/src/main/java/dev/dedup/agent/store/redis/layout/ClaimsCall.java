package dev.dedup.agent.store.redis.layout;

import dev.dedup.agent.store.redis.access.RedisKeys;
import dev.dedup.agent.store.redis.access.RedisScript.Mode;
import dev.dedup.agent.store.redis.gather.ShardCalls;
import java.nio.charset.StandardCharsets;

/**
 * One call of {@code claims.lua} (sent after {@code guard.lua}, {@code answers.lua} and {@code records.lua}, as
 * one script) on {@code shard}: what it is told besides its items and their buckets, which is the same for
 * every call merged into one.
 *
 * <p>The script replies {@code {answers, level, split, claims}}: one answer byte per item, in order (a claim:
 * 0 new, 1 retry, 2 duplicate; a release: 1 released, 0 not held by that owner; a look-up: 0 absent, 1 held by
 * the item's owner, 2 by another), then the table's state after the call. A look-up adds the 7-byte
 * owner-and-end of every item found, in order. On a Redis Cluster, an item whose bucket moved to one the call
 * does not declare makes it reply {@code {'', level, split, claims, 'stale'}}, having written nothing.
 */
final class ClaimsCall {

    private static final byte[] ONE = {'1'};
    private static final byte[] ZERO = {'0'};

    /** What every call of a layout is told alike: the release channel, the base bits, whether on a cluster. */
    record Shared(byte[] channel, byte[] baseArg, byte[] clustered) {
        Shared(RedisKeys keys, int baseBits) {
            this(keys.releaseChannel(), RedisKeys.ascii(baseBits), new byte[] {(byte) (keys.clustered() ? '1' : '0')});
        }
    }

    private final Shared shared;
    private final FingerprintTable table;
    private final int shard;
    private final Mode mode;
    private final FingerprintTable.State view;
    private final long nowMillis;

    ClaimsCall(
            Shared shared, FingerprintTable table, int shard, Mode mode, FingerprintTable.State view, long nowMillis) {
        this.shared = shared;
        this.table = table;
        this.shard = shard;
        this.mode = mode;
        this.view = view;
        this.nowMillis = nowMillis;
    }

    /**
     * The keys after the call's buckets: {@code KEYS[1 .. m]} are the buckets, in the order of their {@code
     * buckets} (each item names its bucket by that index); {@code KEYS[m + 1]} is the table's state, a hash of
     * {@code level}, {@code split} (the linear-hashing pointer) and {@code claims} (records held); {@code
     * KEYS[m + 2]} the shard's set of tables, which the sweep walks. The guard's key follows ({@link
     * dev.dedup.agent.store.redis.topology.GuardedPort}).
     */
    byte[][] tableKeys() {
        return new byte[][] {table.stateKeys[shard], table.setKeys[shard]};
    }

    /**
     * {@code ARGV}, in order (the guard's expected record follows):
     *
     * <ol>
     *   <li>{@code 'c'} claim, {@code 'r'} release, {@code 'k'} look up (read only: what the shard holds of
     *       each id);
     *   <li>the items, {@value FingerprintTable.Records#ITEM_BYTES} bytes each ({@link
     *       FingerprintTable.Records#item});
     *   <li>now: whole seconds modulo 2^28;
     *   <li>{@code "<level> <split>"}: the state the agent addressed the buckets by;
     *   <li>per key, the bucket it is: u32 big-endian;
     *   <li>{@code '1'} when the table's window slides: a repeat renews the claim's end;
     *   <li>the channel on which released fields are published;
     *   <li>the table's base bits: it has 2^base buckets at level 0;
     *   <li>the table's name, added to the set of tables when the table gains its first record;
     *   <li>{@code '1'} on a Redis Cluster, where a call may touch only the keys it declares: an item whose
     *       bucket moved to one the call does not declare makes it reply {@code 'stale'} without writing;
     *   <li>what every bucket key of the table starts with; the bucket's number follows in 4 bytes;
     *   <li>{@code '1'} when no bucket and field come twice among the items ({@link ShardCalls#distinct}): a
     *       record the call writes is then never looked for again by it.
     * </ol>
     */
    byte[][] args(byte[] items, long[] buckets) {
        byte[] numbers = new byte[buckets.length * 4];
        for (int k = 0; k < buckets.length; k++) {
            long b = buckets[k];
            for (int i = 0; i < 4; i++) {
                numbers[k * 4 + i] = (byte) (b >>> (24 - 8 * i));
            }
        }
        return new byte[][] {
            mode.arg(),
            items,
            FingerprintTable.Records.now(nowMillis),
            view.view().getBytes(StandardCharsets.US_ASCII),
            numbers,
            table.slidingArg(),
            shared.channel(),
            shared.baseArg(),
            table.nameArg,
            shared.clustered(),
            table.bucketHeads[shard],
            ShardCalls.distinct(items, FingerprintTable.Records.ITEM_BYTES, FingerprintTable.Records.FIELD_AT)
                    ? ONE
                    : ZERO
        };
    }
}
