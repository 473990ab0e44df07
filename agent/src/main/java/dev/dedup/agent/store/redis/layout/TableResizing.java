package dev.dedup.agent.store.redis.layout;

import dev.dedup.agent.metrics.MetricNames;
import dev.dedup.agent.store.redis.access.RedisKeys;
import dev.dedup.agent.store.redis.access.RedisPort;
import dev.dedup.agent.store.redis.access.RedisPort.Op;
import dev.dedup.agent.store.redis.access.RedisScript;
import dev.dedup.agent.store.redis.access.ShardCounters;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.lang.System.Logger.Level;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * How a fingerprint table keeps about {@value #SPLIT_ABOVE} records a bucket whatever it holds: linear hashing.
 * Every state a shard reports of a table (a claim call's reply, a sweep, a read of the shard's tables) is
 * {@linkplain #observed observed}; when the table holds more than {@value #SPLIT_ABOVE} records a bucket on
 * average the agent splits the next buckets in turn, and below {@value #MERGE_BELOW} it merges the last split back,
 * up to {@value #PAIRS_PER_CALL} pairs a call of {@code table.lua}, one call at a time per table and shard.
 * {@link FingerprintTable.State} says which bucket an id is in at each state.
 */
final class TableResizing {

    private static final System.Logger LOG = System.getLogger(TableResizing.class.getName());

    /**
     * Mean records a bucket may hold before the table splits one more: a claim reads its whole bucket (about 1.7 ns
     * a byte in Redis's Lua), and a Redis key costs about 80 bytes, so this is where both stay small.
     */
    static final int SPLIT_ABOVE = 48;
    /** Mean records a bucket holds below which the table merges its last split back. */
    static final int MERGE_BELOW = 16;
    /**
     * Buckets split or merged by one call at most. Calls go one at a time per table and shard, each behind the
     * claim calls queued on the shard's connection, so this bounds how fast a table grows. One shard taking
     * 110,000 to 120,000 new ids a second from one agent ended 6 M claims at 48 a bucket with 64, at 85 with 32
     * and at 333 with 8 (and claimed 40 % slower, every claim reading its whole bucket); a call of 64 holds the
     * shard for 3.7 ms (median), about as long as a claim call of a few hundred new ids.
     */
    static final int PAIRS_PER_CALL = 64;

    /** A change of a table's size: its {@code table.lua} argument. */
    enum Change {
        SPLIT('s'),
        MERGE('m');

        final byte arg;

        Change(char arg) {
            this.arg = (byte) arg;
        }
    }

    private final RedisPort port;
    private final int baseBits;
    private final byte[] baseArg;
    private final Counter[] splits;
    private final Counter[] merges;

    TableResizing(RedisPort port, int baseBits, MeterRegistry registry) {
        this.port = port;
        this.baseBits = baseBits;
        this.baseArg = RedisKeys.ascii(baseBits);
        String resized = "Buckets a fingerprint table split or merged as the claims it holds grew or shrank";
        this.splits = ShardCounters.of(registry, port, MetricNames.REDIS_TABLE_RESIZES, resized, "op", "split");
        this.merges = ShardCounters.of(registry, port, MetricNames.REDIS_TABLE_RESIZES, resized, "op", "merge");
    }

    /**
     * What a table of {@code baseBits} in {@code state} is due: a split when it holds more than {@value
     * #SPLIT_ABOVE} records a bucket (and may still split by the records' route bits), a merge when it holds fewer
     * than {@value #MERGE_BELOW} and has more than its base; null when neither.
     */
    static Change due(FingerprintTable.State state, int baseBits) {
        long buckets = state.buckets(baseBits);
        if (state.claims() > SPLIT_ABOVE * buckets && state.level() < FingerprintTable.Records.ROUTE_BITS) {
            return Change.SPLIT;
        }
        if (state.claims() < MERGE_BELOW * buckets && buckets > (1L << baseBits)) {
            return Change.MERGE;
        }
        return null;
    }

    /**
     * The pairs one call of {@code change} splits or merges in {@code state}, as bucket numbers: bucket {@code q}, then
     * its image, pair after pair. A split takes the buckets from the split pointer on, up to the end of the level; a
     * merge the last split back, stepping back a level when the pointer reaches 0. As many pairs as bring the table
     * to its mean (to {@value #SPLIT_ABOVE} records a bucket when it grows, between the two bounds when it shrinks),
     * at least one and at most {@value #PAIRS_PER_CALL}.
     */
    static long[] pairs(FingerprintTable.State state, Change change, int baseBits) {
        long buckets = state.buckets(baseBits);
        int level = state.level();
        long split = state.split();
        boolean grow = change == Change.SPLIT;
        long wanted = grow
                ? (state.claims() + SPLIT_ABOVE - 1) / SPLIT_ABOVE - buckets
                : buckets - Math.max(1L << baseBits, state.claims() / ((SPLIT_ABOVE + MERGE_BELOW) / 2));
        long pairs = Math.max(1, Math.min(PAIRS_PER_CALL, wanted));
        long[] out = new long[(int) pairs * 2];
        int n = 0;
        for (long j = 0; j < pairs; j++) {
            if (grow) {
                long low = 1L << (baseBits + level);
                if (split >= low) {
                    break; // the rest of this level's splits go in the next call
                }
                out[n++] = split;
                out[n++] = split + low;
                split++;
            } else {
                if (split == 0) {
                    if (level == 0) {
                        break;
                    }
                    level--;
                    split = 1L << (baseBits + level);
                }
                split--;
                out[n++] = split;
                out[n++] = split + (1L << (baseBits + level));
            }
        }
        return Arrays.copyOf(out, n);
    }

    /** Records what a shard said of a table, and splits or merges buckets when it has outgrown its size. */
    void observed(FingerprintTable table, int shard, FingerprintTable.State state, long nowMillis) {
        table.states.set(shard, state);
        Change change = due(state, baseBits);
        if (change != null && table.resizing[shard].compareAndSet(false, true)) {
            resize(table, shard, state, change, nowMillis);
        }
    }

    /**
     * Splits or merges the {@linkplain #pairs pairs} due in one call of {@code table.lua} (sent after {@code
     * guard.lua} and {@code records.lua}, as one script), then observes the state it leaves, which the script
     * replies as {@code {level, split, claims}}.
     *
     * <p>{@code KEYS[1]} is the table's state; {@code KEYS[2 ..]} the pairs, each bucket then its image. {@code
     * ARGV}, in order:
     *
     * <ol>
     *   <li>{@code 's'} split, {@code 'm'} merge;
     *   <li>{@code "<level> <split>"}: the state the pairs were named by; the script does nothing in any other;
     *   <li>now: whole seconds modulo 2^28 (what has ended by then is dropped);
     *   <li>the table's base bits;
     *   <li>{@code '1'} when the table's window slides: every record is looked at, not only those at a bucket's
     *       front.
     * </ol>
     *
     * The guard's key and expected record follow ({@link dev.dedup.agent.store.redis.topology.GuardedPort}).
     */
    private void resize(
            FingerprintTable table, int shard, FingerprintTable.State state, Change change, long nowMillis) {
        long buckets = state.buckets(baseBits);
        long[] pairs = pairs(state, change, baseBits);
        byte[][] k = new byte[1 + pairs.length][];
        k[0] = table.stateKeys[shard];
        for (int i = 0; i < pairs.length; i++) {
            k[1 + i] = table.bucketKey(shard, pairs[i]);
        }
        byte[][] args = {
            {change.arg},
            state.view().getBytes(StandardCharsets.US_ASCII),
            FingerprintTable.Records.now(nowMillis),
            baseArg,
            table.slidingArg()
        };
        int done = pairs.length / 2;
        port.eval(shard, RedisScript.TABLE, Op.RESIZE, k, args).whenComplete((reply, failure) -> {
            table.resizing[shard].set(false);
            if (failure != null) {
                LOG.log(
                        Level.DEBUG,
                        "redis: resizing table " + table.name + " on " + port.name(shard) + " failed: " + failure);
                return;
            }
            FingerprintTable.State after = new FingerprintTable.State(
                    ((Long) reply.get(0)).intValue(), (Long) reply.get(1), (Long) reply.get(2));
            if (after.buckets(baseBits) != buckets) {
                (change == Change.SPLIT ? splits : merges)[shard].increment(done);
            }
            observed(table, shard, after, nowMillis);
        });
    }
}
