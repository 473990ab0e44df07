package dev.dedup.agent.store.redis.access;

import java.util.Objects;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.function.LongSupplier;

/**
 * The Redis tier's time and threads, given to the store whole, as Caffeine takes its {@code Ticker} and {@code
 * Scheduler}: one place owns them, and tests give their own.
 *
 * @param clockMillis the wall clock, in milliseconds: when claims end, which second a cut-over is due
 * @param ticker a monotonic clock, in nanoseconds: how long a call took or has been retried, how long ago a try
 *     failed
 * @param scheduler the one thread of the tier's housekeeping (the topology watch, the sweep, memory readings),
 *     which nothing blocks; the store stops it when it is closed
 */
public record Housekeeping(LongSupplier clockMillis, LongSupplier ticker, ScheduledExecutorService scheduler) {

    /** The system's monotonic clock. */
    public static final LongSupplier SYSTEM_TICKER = System::nanoTime;

    public Housekeeping {
        Objects.requireNonNull(clockMillis, "clockMillis");
        Objects.requireNonNull(ticker, "ticker");
        Objects.requireNonNull(scheduler, "scheduler");
    }

    /** {@code clockMillis}, the system's ticker, and a daemon thread {@code dedup-redis} of the store's own. */
    public static Housekeeping of(LongSupplier clockMillis) {
        return new Housekeeping(clockMillis, SYSTEM_TICKER, Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "dedup-redis");
            t.setDaemon(true);
            return t;
        }));
    }
}
