package dev.dedup.agent.store.redis;

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
 * The range due at a given second is the same for every agent, and a marker per range lets only the first agent
 * to get there do the work, so the cost does not grow with the number of agents. A table's period is a quarter
 * of its window, from a minute to six hours. The tables are those this agent uses and those the shards list.
 */
final class RedisSweeper implements AutoCloseable {

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
    /** Per table and shard, the last slot swept. */
    private final Map<String, long[]> lastSlot = new ConcurrentHashMap<>();

    private long tablesReadAt = Long.MIN_VALUE;
    private boolean warned;

    RedisSweeper(
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
    RedisSweeper start() {
        ticking = scheduler.scheduleWithFixedDelay(this::tick, 1, 1, TimeUnit.SECONDS);
        return this;
    }

    /** A table's period: a quarter of its window, from {@value #MIN_PERIOD_SECONDS} s to 6 h. */
    static long periodSeconds(long windowMillis) {
        return Math.max(MIN_PERIOD_SECONDS, Math.min(MAX_PERIOD_SECONDS, windowMillis / 4000));
    }

    /** The slot due at {@code nowMillis}: a counter that moves through all {@code ranges} once per period. */
    static long slotAt(long nowMillis, long ranges, long periodSeconds) {
        return Math.floorDiv(Math.floorDiv(nowMillis, 1000L) * ranges, periodSeconds);
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
        if (tablesReadAt == Long.MIN_VALUE || now - tablesReadAt >= TABLES_EVERY_SECONDS * 1000) {
            readTables(now);
            tablesReadAt = now;
        }
        long dropped = 0;
        for (FingerprintTables.Table table : layout.tables()) {
            long[] last = lastSlot.computeIfAbsent(table.name, n -> newLast());
            for (int s = 0; s < port.shards(); s++) {
                dropped += sweep(table, s, last, now);
            }
        }
        return dropped;
    }

    private long[] newLast() {
        long[] last = new long[port.shards()];
        java.util.Arrays.fill(last, Long.MIN_VALUE);
        return last;
    }

    private void readTables(long nowMillis) {
        for (int s = 0; s < port.shards(); s++) {
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
                FingerprintTables.Table table = layout.table(name);
                TableState seen = new TableState(((Long) t.get(1)).intValue(), (Long) t.get(2), (Long) t.get(3));
                if (table.states.get(s).equals(TableState.EMPTY)) {
                    layout.observed(table, s, seen, nowMillis);
                }
            }
        }
    }

    private long sweep(FingerprintTables.Table table, int shard, long[] last, long nowMillis) {
        TableState state = table.states.get(shard);
        long buckets = state.buckets(layout.baseBits());
        long ranges = (buckets + RANGE_BUCKETS - 1) / RANGE_BUCKETS;
        long period = periodSeconds(table.windowMillis);
        long current = slotAt(nowMillis, ranges, period);
        long from = last[shard] == Long.MIN_VALUE ? current : Math.max(last[shard] + 1, current - ranges + 1);
        long dropped = 0;
        for (long slot = from; slot <= current; slot++) {
            int range = (int) Math.floorMod(slot, ranges);
            long first = (long) range * RANGE_BUCKETS;
            long end = Math.min(buckets, first + RANGE_BUCKETS);
            byte[][] k = new byte[(int) (end - first) + 2][];
            k[0] = keys.sweepMarker(shard, table.name, range);
            k[1] = table.stateKeys[shard];
            for (long b = first; b < end; b++) {
                k[(int) (b - first) + 2] = table.bucketKey(shard, b);
            }
            byte[][] args = {
                RedisKeys.ascii(slot),
                RedisKeys.ascii(Math.floorMod(Math.floorDiv(nowMillis, 1000L), FingerprintTables.END_RANGE)),
                RedisKeys.ascii(period * 1000),
                {(byte) (table.sliding ? '1' : '0')}
            };
            List<Object> reply = port.eval(shard, RedisScript.SWEEP, Mode.SWEEP, k, args)
                    .toCompletableFuture()
                    .join();
            if (reply.size() > 2 && reply.get(1) instanceof Long gone && gone > 0) {
                dropped += gone;
                TableState now = table.states.get(shard);
                layout.observed(table, shard, new TableState(now.level(), now.split(), (Long) reply.get(2)), nowMillis);
            }
            last[shard] = slot;
        }
        return dropped;
    }

    @Override
    public void close() {
        if (ticking != null) {
            ticking.cancel(false);
        }
    }
}
