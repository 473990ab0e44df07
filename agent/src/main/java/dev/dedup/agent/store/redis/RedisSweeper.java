package dev.dedup.agent.store.redis;

import java.lang.System.Logger.Level;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * Sweeps every bucket of expired claims once per period, a range of {@value #RANGE_BUCKETS} buckets at a
 * time, spread evenly over the period. The range due at a given second is the same for every agent, and
 * a marker per range and shard lets only the first agent to get there do the work, so the cost does not
 * grow with the number of agents. Besides freeing memory, sweeping refreshes the TTL of the keys it
 * keeps, which is what lets a bucket's keys outlive its claims.
 */
final class RedisSweeper implements AutoCloseable {

    private static final System.Logger LOG = System.getLogger(RedisSweeper.class.getName());
    static final int RANGE_BUCKETS = 64;

    private final FingerprintBuckets layout;
    private final int buckets;
    private final int ranges;
    private final long periodSeconds;
    private final LongSupplier clockMillis;
    private final ScheduledExecutorService timer;
    private long lastSlot = Long.MIN_VALUE;
    private boolean warned;

    /**
     * Sweeps {@code layout}'s buckets once per {@code periodSeconds} of {@code clockMillis}, once
     * {@link #start started}.
     */
    RedisSweeper(FingerprintBuckets layout, long periodSeconds, LongSupplier clockMillis) {
        this.layout = layout;
        this.buckets = layout.buckets();
        this.ranges = (buckets + RANGE_BUCKETS - 1) / RANGE_BUCKETS;
        this.periodSeconds = periodSeconds;
        this.clockMillis = clockMillis;
        this.timer = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "dedup-redis-sweeper");
            t.setDaemon(true);
            return t;
        });
    }

    /** Starts ticking: every second, sweeps what is due. */
    RedisSweeper start() {
        timer.scheduleWithFixedDelay(this::tick, 1, 1, TimeUnit.SECONDS);
        return this;
    }

    /** The slot due now: a counter that moves through all ranges once per period. */
    long slotAt(long nowMillis) {
        return Math.floorDiv(Math.floorDiv(nowMillis, 1000L) * ranges, periodSeconds);
    }

    private void tick() {
        try {
            sweepDue();
        } catch (RuntimeException e) {
            if (!warned) {
                warned = true;
                LOG.log(Level.WARNING, "sweeping expired claims failed (will retry each second): " + e.getMessage());
            }
        }
    }

    /** Sweeps the slots due since the last call (at most one full period's worth); returns claims removed. */
    synchronized long sweepDue() {
        long current = slotAt(clockMillis.getAsLong());
        long from = lastSlot == Long.MIN_VALUE ? current : Math.max(lastSlot + 1, current - ranges + 1);
        long removed = 0;
        for (long slot = from; slot <= current; slot++) {
            int range = (int) Math.floorMod(slot, (long) ranges);
            int first = range * RANGE_BUCKETS;
            removed += layout.sweep(
                            first, Math.min(buckets, first + RANGE_BUCKETS), slot, range, clockMillis.getAsLong())
                    .toCompletableFuture()
                    .join();
            lastSlot = slot;
        }
        warned = false;
        return removed;
    }

    @Override
    public void close() {
        timer.shutdownNow();
    }
}
