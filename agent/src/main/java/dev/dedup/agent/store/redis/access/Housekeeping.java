package dev.dedup.agent.store.redis.access;

import java.util.Objects;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * The Redis tier's time and threads, given to the store whole, as Caffeine takes its {@code Ticker} and {@code
 * Scheduler}: one place owns them, and tests give their own.
 *
 * @param clockMillis the wall clock, in milliseconds: when claims end, which second a cut-over is due
 * @param ticker a monotonic clock, in nanoseconds: how long a call took or has been retried, how long ago a try
 *     failed
 * @param scheduler the one thread of the tier's housekeeping (the topology watch, the sweep, memory readings),
 *     and the pauses of retries ({@link Retry}), which nothing blocks; the store shuts it down when it is closed:
 *     the periodic work ends there, a retry already pausing still makes its try (and fails if the connections are
 *     gone), so that no call is left unanswered
 */
public record Housekeeping(LongSupplier clockMillis, LongSupplier ticker, ScheduledExecutorService scheduler)
        implements Retry.Pauses {

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

    /** Runs {@code then} on the scheduler after {@code millis}. */
    @Override
    public void after(long millis, Runnable then) {
        scheduler.schedule(then, millis, TimeUnit.MILLISECONDS);
    }
}
