package dev.dedup.agent.store.redis.gather;

import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * The thread that ends the holds of {@link CallGathering}: one daemon thread for every gathering of the process,
 * since a hold's end only takes what waited off a queue and hands it to the connection.
 */
final class HoldTimer implements CallGathering.Scheduler {

    static final HoldTimer SHARED = new HoldTimer();

    private final ScheduledThreadPoolExecutor executor;

    private HoldTimer() {
        executor = new ScheduledThreadPoolExecutor(1, r -> {
            Thread t = new Thread(r, "dedup-gather-hold");
            t.setDaemon(true);
            return t;
        });
    }

    @Override
    public void schedule(Runnable task, long delayNanos) {
        executor.schedule(task, delayNanos, TimeUnit.NANOSECONDS);
    }
}
