package dev.dedup.kafka;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * When a loop's {@code run()} has ended (its consumer closed, the group left), for a {@code stop} that waits for it.
 * A stop called on the loop's own thread (from a sink or a listener) cannot wait for the loop: it returns at once.
 */
final class LoopEnd {

    /** How long {@code stop()} waits for the loop to close its consumer. */
    static final Duration DEFAULT_STOP_TIMEOUT = Duration.ofSeconds(30);

    private final CountDownLatch ended = new CountDownLatch(1);
    private volatile Thread runner;

    /** On the loop's thread, as {@code run()} starts. */
    void running() {
        runner = Thread.currentThread();
    }

    /** On the loop's thread, once the consumer is closed. */
    void ended() {
        ended.countDown();
    }

    /**
     * Waits up to {@code timeout} for the loop to end. True when it has (or never ran: nothing to wait for); false when
     * the time ran out, or when called on the loop's own thread.
     */
    boolean await(Duration timeout) {
        if (runner == null) {
            return true;
        }
        if (Thread.currentThread() == runner) {
            return ended.getCount() == 0;
        }
        try {
            return ended.await(timeout.toNanos(), TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    static Duration positive(Duration timeout) {
        if (timeout == null || timeout.isNegative()) {
            throw new IllegalArgumentException("timeout: must be zero or positive, got " + timeout);
        }
        return timeout;
    }
}
