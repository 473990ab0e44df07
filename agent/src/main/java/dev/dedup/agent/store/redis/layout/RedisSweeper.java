package dev.dedup.agent.store.redis.layout;

import dev.dedup.agent.store.redis.access.RedisKeys;
import dev.dedup.agent.store.redis.access.RedisPort;
import dev.dedup.agent.store.redis.access.RedisPort.Op;
import dev.dedup.agent.store.redis.access.RedisPort.Script;
import dev.dedup.agent.store.redis.topology.GuardedPort;
import java.lang.System.Logger.Level;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
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
 * until the next tick; the others are swept. The calls are made one after another, and nothing waits on them: the
 * housekeeping thread only starts a tick's sweep, and a tick finding the last one still running skips.
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

    private volatile long tablesReadAt = Long.MIN_VALUE;
    private volatile boolean warned;
    /** The last sweep asked for: the next starts when it ends. */
    private CompletableFuture<Long> queued = CompletableFuture.completedFuture(0L);
    /** The last tick's sweep. */
    private volatile CompletableFuture<Long> running;

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

    /**
     * The marker of sweep range {@code range} of a table: which slot was last swept. One per shard and table
     * ({@code <prefix>:sweep:<table>:<range>}, or per group on a cluster).
     */
    static byte[] marker(RedisKeys keys, int shard, String table, int range) {
        return keys.named(shard, ":sweep:" + table + ":" + range);
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
        if (running != null && !running.isDone()) {
            return; // the last tick's calls are still out: a slow shard is not asked twice
        }
        running = sweepDue()
                .whenComplete((dropped, failure) -> {
                    if (failure == null) {
                        warned = false;
                    } else if (!warned) {
                        warned = true;
                        LOG.log(
                                Level.WARNING,
                                "sweeping ended claims failed (will retry each second): "
                                        + cause(failure).getMessage());
                    }
                })
                .toCompletableFuture();
    }

    private static Throwable cause(Throwable t) {
        return t instanceof java.util.concurrent.CompletionException && t.getCause() != null ? t.getCause() : t;
    }

    /**
     * Reads the shards' tables when due, then sweeps the ranges due since the last call, one call at a time and
     * without blocking; completes with the records dropped, or, when a shard failed, with its failure once every
     * other shard and table was tried. A call made while another runs starts when it ends.
     */
    synchronized CompletionStage<Long> sweepDue() {
        CompletableFuture<Long> next = queued.handle((ignored, failure) -> null)
                .thenCompose(ignored -> sweepNow())
                .toCompletableFuture();
        queued = next;
        return next;
    }

    private CompletionStage<Long> sweepNow() {
        long now = clockMillis.getAsLong();
        AtomicReference<Throwable> failed = new AtomicReference<>();
        CompletionStage<Void> read = CompletableFuture.completedFuture(null);
        if (tablesReadAt == Long.MIN_VALUE || now - tablesReadAt >= TABLES_EVERY_SECONDS * 1000) {
            tablesReadAt = now;
            for (int s = 0; s < port.shards(); s++) {
                int shard = s;
                read = read.thenCompose(ignored -> readTables(shard, now).exceptionally(e -> {
                    failed.set(cause(e));
                    tablesReadAt = Long.MIN_VALUE; // read again on the next tick
                    return null;
                }));
            }
        }
        return read.thenCompose(ignored -> {
                    CompletionStage<Long> dropped = CompletableFuture.completedFuture(0L);
                    for (FingerprintTable table : layout.tables()) {
                        Swept[] last = lastSwept.computeIfAbsent(table.name, n -> new Swept[port.shards()]);
                        for (int s = 0; s < port.shards(); s++) {
                            int shard = s;
                            dropped = dropped.thenCompose(sum -> sweep(table, shard, last, now)
                                    .exceptionally(e -> {
                                        failed.set(cause(e));
                                        return 0L;
                                    })
                                    .thenApply(gone -> sum + gone));
                        }
                    }
                    return dropped;
                })
                .thenApply(dropped -> {
                    Throwable failure = failed.get();
                    if (failure instanceof RuntimeException e) {
                        throw e;
                    } else if (failure != null) {
                        throw new java.util.concurrent.CompletionException(failure);
                    }
                    return dropped;
                });
    }

    /**
     * Reads the tables shard {@code s} holds with {@code tables.lua}, which replies with {@code {name, level, split,
     * claims}} per table: {@code KEYS[1]} is the shard's set of tables (which {@code claims.lua} adds a table to
     * when it gains its first record), {@code ARGV[1]} what a table's state key is before the table's name.
     */
    private CompletionStage<Void> readTables(int s, long nowMillis) {
        byte[] head = FingerprintTable.stateKey(keys, s, "");
        return port.eval(s, Script.TABLES, Op.SWEEP, new byte[][] {FingerprintTable.setKey(keys, s)}, new byte[][] {head
                })
                .thenAccept(reply -> {
                    for (Object o : reply) {
                        List<?> t = (List<?>) o;
                        String name = new String((byte[]) t.get(0), StandardCharsets.US_ASCII);
                        if (!name.matches("[fs][0-9]{1,15}|e[0-9]{1,15}\\.[A-Za-z0-9._-]{1,64}")) {
                            continue; // not a table of this agent's
                        }
                        FingerprintTable table = layout.table(name);
                        FingerprintTable.State seen = new FingerprintTable.State(
                                ((Long) t.get(1)).intValue(), (Long) t.get(2), (Long) t.get(3));
                        layout.observed(table, s, seen, nowMillis);
                    }
                });
    }

    private CompletionStage<Long> sweep(FingerprintTable table, int shard, Swept[] last, long nowMillis) {
        FingerprintTable.State state = table.state(shard);
        long buckets = state.buckets(layout.baseBits());
        long ranges = (buckets + RANGE_BUCKETS - 1) / RANGE_BUCKETS;
        long periodSeconds = periodSeconds(table.windowMillis);
        long period = Math.floorDiv(Math.floorDiv(nowMillis, 1000L), periodSeconds);
        long due = rangeAt(nowMillis, ranges, periodSeconds);
        Swept before = last[shard];
        List<Swept> todo = new ArrayList<>();
        if (before == null) {
            todo.add(new Swept(period, due));
        } else {
            if (before.period() == period - 1) { // the end of the period before, not swept yet
                for (long r = before.range() + 1; r < ranges; r++) {
                    todo.add(new Swept(period - 1, r));
                }
            }
            // After a longer pause the ranges of the periods missed are swept as this period reaches them.
            long from = before.period() == period ? before.range() + 1 : 0;
            for (long r = from; r <= due; r++) {
                todo.add(new Swept(period, r));
            }
        }
        CompletionStage<Long> dropped = CompletableFuture.completedFuture(0L);
        for (Swept range : todo) {
            dropped = dropped.thenCompose(
                    sum -> sweepRange(table, shard, range.period(), range.range(), buckets, periodSeconds, nowMillis)
                            .thenApply(gone -> sum + gone));
        }
        return dropped.thenApply(sum -> {
            last[shard] = new Swept(period, due);
            return sum;
        });
    }

    /**
     * Sweeps range {@code range} of a table on a shard with {@link Script#SWEEP} ({@code guard.lua},
     * {@code records.lua} and {@code sweep.lua}, as one script), unless its marker says it was swept in {@code period}. The script replies {@code {'', records
     * dropped, the table's records}}, or {@code {'skipped', 0}} when another agent swept the range in this period.
     *
     * <p>{@code KEYS[1]} is the range's marker, which holds the period it was last swept in; {@code KEYS[2]} the
     * table's state; {@code KEYS[3 ..]} the range's buckets. {@code ARGV}, in order:
     *
     * <ol>
     *   <li>the period being swept: seconds since the epoch over the table's period;
     *   <li>now: whole seconds modulo 2^28 (in a table of event times, the event clock in its state, less the window,
     *       instead);
     *   <li>how long the marker lives, in milliseconds: two periods;
     *   <li>what ends mean ({@link FingerprintTable#modeArg}): with {@code '1'} or {@code 'e'} every record is
     *       looked at, else the first of each bucket;
     *   <li>the table's window in whole seconds, rounded up: a table of event times keeps its records until the
     *       clock is this far past their end.
     * </ol>
     *
     * The guard's key and expected record follow ({@link GuardedPort}).
     */
    private CompletionStage<Long> sweepRange(
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
            return CompletableFuture.completedFuture(0L);
        }
        byte[][] k = new byte[(int) (end - first) + 2][];
        k[0] = marker(keys, shard, table.name, (int) range);
        k[1] = table.stateKeys[shard];
        for (long b = first; b < end; b++) {
            k[(int) (b - first) + 2] = table.bucketKey(shard, b);
        }
        byte[][] args = {
            RedisKeys.ascii(period),
            FingerprintTable.Records.now(nowMillis),
            RedisKeys.ascii(2 * periodSeconds * 1000),
            table.modeArg(),
            table.windowSecondsArg
        };
        return port.eval(shard, Script.SWEEP, Op.SWEEP, k, args).thenApply(reply -> {
            if (reply.size() > 2 && reply.get(1) instanceof Long gone && gone > 0) {
                FingerprintTable.State now = table.state(shard);
                layout.observed(
                        table,
                        shard,
                        new FingerprintTable.State(now.level(), now.split(), (Long) reply.get(2)),
                        nowMillis);
                return gone;
            }
            return 0L;
        });
    }

    @Override
    public void close() {
        if (ticking != null) {
            ticking.cancel(false);
        }
    }
}
