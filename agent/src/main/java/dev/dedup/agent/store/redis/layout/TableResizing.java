package dev.dedup.agent.store.redis.layout;

import dev.dedup.agent.metrics.MetricNames;
import dev.dedup.agent.store.redis.access.RedisKeys;
import dev.dedup.agent.store.redis.access.RedisPort;
import dev.dedup.agent.store.redis.access.RedisPort.Op;
import dev.dedup.agent.store.redis.access.RedisPort.Script;
import dev.dedup.agent.store.redis.access.ShardCounters;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.lang.System.Logger.Level;
import java.nio.charset.StandardCharsets;

/**
 * How a fingerprint table keeps about {@value FingerprintTable#SPLIT_ABOVE} records a bucket whatever it holds: the
 * change of size a table's state is due ({@link FingerprintTable#observe}, {@link FingerprintTable.State#due}),
 * made by calls of {@code table.lua}, up to {@value #PAIRS_PER_CALL} pairs a call, one call at a time per table and
 * shard, until the table is due none.
 */
final class TableResizing {

    private static final System.Logger LOG = System.getLogger(TableResizing.class.getName());

    /**
     * Buckets split or merged by one call at most. Calls go one at a time per table and shard, each behind the
     * claim calls queued on the shard's connection, so this bounds how fast a table grows. One shard taking
     * 110,000 to 120,000 new ids a second from one agent ended 6 M claims at 48 a bucket with 64, at 85 with 32
     * and at 333 with 8 (and claimed 40 % slower, every claim reading its whole bucket); a call of 64 holds the
     * shard for 3.7 ms (median), about as long as a claim call of a few hundred new ids.
     */
    static final int PAIRS_PER_CALL = 64;

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
     * Records what a shard said of a table (a sweep's finding, a read of its state), and splits or merges buckets
     * when it is due.
     */
    void observed(FingerprintTable table, int shard, FingerprintTable.State state, long nowMillis) {
        FingerprintTable.Resize due = table.observe(shard, state);
        if (due != null) {
            resize(table, shard, state, due, nowMillis);
        }
    }

    /**
     * Splits or merges the {@linkplain FingerprintTable.State#pairs pairs} due in one call of {@code table.lua} (sent
     * after {@code guard.lua} and {@code records.lua}, as one script), then observes the state it leaves, which the
     * script replies as {@code {level, split, claims}}, and goes on while a change is due. The caller took the
     * table's resize on the shard ({@link FingerprintTable#observe}); this gives it back.
     *
     * <p>{@code KEYS[1]} is the table's state; {@code KEYS[2 ..]} the pairs, each bucket then its image. {@code
     * ARGV}, in order:
     *
     * <ol>
     *   <li>{@code 's'} split, {@code 'm'} merge;
     *   <li>{@code "<level> <split>"}: the state the pairs were named by; the script does nothing in any other;
     *   <li>now: whole seconds modulo 2^28 (what has ended by then is dropped; in a table of event times, the
     *       event clock in its state, less the window, instead);
     *   <li>the table's base bits;
     *   <li>what ends mean ({@link FingerprintTable#modeArg}): with {@code '1'} or {@code 'e'} every record is
     *       looked at, not only those at a bucket's front;
     *   <li>the table's window in whole seconds, rounded up: a table of event times keeps its records until the
     *       clock is this far past their end.
     * </ol>
     *
     * The guard's key and expected record follow ({@link dev.dedup.agent.store.redis.topology.GuardedPort}).
     */
    void resize(
            FingerprintTable table,
            int shard,
            FingerprintTable.State state,
            FingerprintTable.Resize change,
            long nowMillis) {
        long buckets = state.buckets(baseBits);
        long[] pairs = state.pairs(change, baseBits, PAIRS_PER_CALL);
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
            table.modeArg(),
            table.windowSecondsArg
        };
        int done = pairs.length / 2;
        port.eval(shard, Script.TABLE, Op.RESIZE, k, args).whenComplete((reply, failure) -> {
            table.resized(shard);
            if (failure != null) {
                LOG.log(
                        Level.DEBUG,
                        "redis: resizing table " + table.name + " on " + port.name(shard) + " failed: " + failure);
                return;
            }
            FingerprintTable.State after = new FingerprintTable.State(
                    ((Long) reply.get(0)).intValue(), (Long) reply.get(1), (Long) reply.get(2));
            if (after.buckets(baseBits) != buckets) {
                (change == FingerprintTable.Resize.SPLIT ? splits : merges)[shard].increment(done);
            }
            observed(table, shard, after, nowMillis);
        });
    }
}
