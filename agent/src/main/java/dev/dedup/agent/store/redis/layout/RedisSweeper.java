package dev.dedup.agent.store.redis.layout;

import dev.dedup.agent.store.redis.access.Mode;
import dev.dedup.agent.store.redis.access.RedisKeys;
import dev.dedup.agent.store.redis.access.RedisPort;
import dev.dedup.agent.store.redis.access.RedisScript;
import dev.dedup.agent.store.redis.topology.GuardedPort;
import java.lang.System.Logger.Level;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * Sweeps every bucket of every fingerprint table once per period, {@value #RANGE_BUCKETS} buckets at a time,
 * spread evenly over the period: drops the claims that have ended from buckets no claim has written since
 * (writing a bucket drops them otherwise), so that a table whose traffic stops frees its memory and shrinks.
 * Range {@code r} of a table of {@code R} ranges is due {@code r/R} of the way into each period, so that agents
 * whose views of the table's size differ a little still sweep the same range at about the same time, and the
 * range's marker holds the period it was last swept in: only the first agent to get there does the work, and
 * the cost does not grow with the number of agents. A table's period is a quarter of its window, from a minute
 * to six hours. The tables are those this agent uses and those the shards list. A shard that fails is skipped
 * until the next tick; the others are swept.
 */
public final class RedisSweeper implements AutoCloseable {

    private static final System.Logger LOG = System.getLogger(RedisSweeper.class.getName());

    static final int RANGE_BUCKETS = 64;
    static final long MIN_PERIOD_SECONDS = 60;
    static final long MAX_PERIOD_SECONDS = 6 * 3600;
    /** How often the shards' lists of tables are read. */
    static final long TABLES_EVERY_SECONDS = 60;

    private final FingerprintTables layout;
    private final RedisPort port;
    private final RedisKeys keys;
    private final LongSupplier clockMillis;
    private final ScheduledExecutorService scheduler;
    private java.util.concurrent.ScheduledFuture<?> ticking;
    /** Per table and shard, the period and the range last swept ({@code null}: none yet). */
    private final Map<String, Swept[]> lastSwept = new ConcurrentHashMap<>();

    private record Swept(long period, long range) {}

    private long tablesReadAt = Long.MIN_VALUE;
    private boolean warned;

    public RedisSweeper(
            FingerprintTables layout,
            RedisPort port,
            RedisKeys keys,
            LongSupplier clockMillis,
            ScheduledExecutorService scheduler) {
        this.layout = layout;
        this.port = port;
        this.keys = keys;
        this.clockMillis = clockMillis;
        this.scheduler = scheduler;
    }

    /** Starts ticking on the scheduler: every second, sweeps what is due. */
    public RedisSweeper start() {
        ticking = scheduler.scheduleWithFixedDelay(this::tick, 1, 1, TimeUnit.SECONDS);
        return this;
    }

    /** A table's period: a quarter of its window, from {@value #MIN_PERIOD_SECONDS} s to 6 h. */
    static long periodSeconds(long windowMillis) {
        return Math.max(MIN_PERIOD_SECONDS, Math.min(MAX_PERIOD_SECONDS, windowMillis / 4000));
    }

    /** The range due at {@code nowMillis}: {@code 0} at the start of each period, {@code ranges - 1} at its end. */
    static long rangeAt(long nowMillis, long ranges, long periodSeconds) {
        return Math.floorMod(Math.floorDiv(nowMillis, 1000L), periodSeconds) * ranges / periodSeconds;
    }

    private void tick() {
        try {
            sweepDue();
            warned = false;
        } catch (RuntimeException e) {
            if (!warned) {
                warned = true;
                LOG.log(Level.WARNING, "sweeping ended claims failed (will retry each second): " + e.getMessage());
            }
        }
    }

    /** Reads the shards' tables when due, then sweeps the ranges due since the last call; returns records dropped. */
    synchronized long sweepDue() {
        long now = clockMillis.getAsLong();
        RuntimeException failed = null;
        if (tablesReadAt == Long.MIN_VALUE || now - tablesReadAt >= TABLES_EVERY_SECONDS * 1000) {
            tablesReadAt = now;
            for (int s = 0; s < port.shards(); s++) {
                try {
                    readTables(s, now);
                } catch (RuntimeException e) {
                    failed = e;
                    tablesReadAt = Long.MIN_VALUE; // read again on the next tick
                }
            }
        }
        long dropped = 0;
        for (FingerprintTable table : layout.tables()) {
            Swept[] last = lastSwept.computeIfAbsent(table.name, n -> new Swept[port.shards()]);
            for (int s = 0; s < port.shards(); s++) {
                try {
                    dropped += sweep(table, s, last, now);
                } catch (RuntimeException e) {
                    failed = e;
                }
            }
        }
        if (failed != null) {
            throw failed;
        }
        return dropped;
    }

    /**
     * Reads the tables shard {@code s} holds with {@code tables.lua}, which replies with {@code {name, level, split,
     * claims}} per table: {@code KEYS[1]} is the shard's set of tables (which {@code claims.lua} adds a table to
     * when it gains its first record), {@code ARGV[1]} what a table's state key is before the table's name.
     */
    private void readTables(int s, long nowMillis) {
        byte[] head = keys.tableState(s, "");
        List<Object> reply = port.eval(
                        s, RedisScript.TABLES, Mode.SWEEP, new byte[][] {keys.tables(s)}, new byte[][] {head})
                .toCompletableFuture()
                .join();
        for (Object o : reply) {
            List<?> t = (List<?>) o;
            String name = new String((byte[]) t.get(0), StandardCharsets.US_ASCII);
            if (!name.matches("[fs][0-9]{1,15}")) {
                continue; // not a table of this agent's
            }
            FingerprintTable table = layout.table(name);
            TableState seen = new TableState(((Long) t.get(1)).intValue(), (Long) t.get(2), (Long) t.get(3));
            layout.observed(table, s, seen, nowMillis);
        }
    }

    private long sweep(FingerprintTable table, int shard, Swept[] last, long nowMillis) {
        TableState state = table.states.get(shard);
        long buckets = state.buckets(layout.baseBits());
        long ranges = (buckets + RANGE_BUCKETS - 1) / RANGE_BUCKETS;
        long periodSeconds = periodSeconds(table.windowMillis);
        long period = Math.floorDiv(Math.floorDiv(nowMillis, 1000L), periodSeconds);
        long due = rangeAt(nowMillis, ranges, periodSeconds);
        Swept before = last[shard];
        long dropped = 0;
        if (before == null) {
            dropped += sweepRange(table, shard, period, due, buckets, periodSeconds, nowMillis);
        } else {
            if (before.period() == period - 1) { // the end of the period before, not swept yet
                for (long r = before.range() + 1; r < ranges; r++) {
                    dropped += sweepRange(table, shard, period - 1, r, buckets, periodSeconds, nowMillis);
                }
            }
            // After a longer pause the ranges of the periods missed are swept as this period reaches them.
            long from = before.period() == period ? before.range() + 1 : 0;
            for (long r = from; r <= due; r++) {
                dropped += sweepRange(table, shard, period, r, buckets, periodSeconds, nowMillis);
            }
        }
        last[shard] = new Swept(period, due);
        return dropped;
    }

    /**
     * Sweeps range {@code range} of a table on a shard with {@link RedisScript#SWEEP} ({@code guard.lua},
     * {@code records.lua} and {@code sweep.lua}, as one script), unless its marker says it was swept in {@code period}. The script replies {@code {'', records
     * dropped, the table's records}}, or {@code {'skipped', 0}} when another agent swept the range in this period.
     *
     * <p>{@code KEYS[1]} is the range's marker, which holds the period it was last swept in; {@code KEYS[2]} the
     * table's state; {@code KEYS[3 ..]} the range's buckets. {@code ARGV}, in order:
     *
     * <ol>
     *   <li>the period being swept: seconds since the epoch over the table's period;
     *   <li>now: whole seconds modulo 2^28;
     *   <li>how long the marker lives, in milliseconds: two periods;
     *   <li>{@code '1'} when the table's window slides: every record is looked at, else the first of each bucket.
     * </ol>
     *
     * The guard's key and expected record follow ({@link GuardedPort}).
     */
    private long sweepRange(
            FingerprintTable table,
            int shard,
            long period,
            long range,
            long buckets,
            long periodSeconds,
            long nowMillis) {
        long first = range * RANGE_BUCKETS;
        long end = Math.min(buckets, first + RANGE_BUCKETS);
        if (first >= end) {
            return 0;
        }
        byte[][] k = new byte[(int) (end - first) + 2][];
        k[0] = keys.sweepMarker(shard, table.name, (int) range);
        k[1] = table.stateKeys[shard];
        for (long b = first; b < end; b++) {
            k[(int) (b - first) + 2] = table.bucketKey(shard, b);
        }
        byte[][] args = {
            RedisKeys.ascii(period),
            FingerprintRecord.now(nowMillis),
            RedisKeys.ascii(2 * periodSeconds * 1000),
            table.slidingArg()
        };
        List<Object> reply = port.eval(shard, RedisScript.SWEEP, Mode.SWEEP, k, args)
                .toCompletableFuture()
                .join();
        if (reply.size() > 2 && reply.get(1) instanceof Long gone && gone > 0) {
            TableState now = table.states.get(shard);
            layout.observed(table, shard, new TableState(now.level(), now.split(), (Long) reply.get(2)), nowMillis);
            return gone;
        }
        return 0;
    }

    @Override
    public void close() {
        if (ticking != null) {
            ticking.cancel(false);
        }
    }
}
