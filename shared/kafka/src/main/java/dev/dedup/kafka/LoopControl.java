package dev.dedup.kafka;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.errors.WakeupException;

/**
 * How a loop runs and ends, the same for a consumer group and a share group: batch after batch until {@link
 * #stop}, then the consumer closed (the group left), and a {@code stop} that waits for that. A stop called on the
 * loop's own thread (from a sink or a listener) cannot wait for the loop: it returns at once.
 */
final class LoopControl {

    /** How long {@code stop()} waits for the loop to close its consumer. */
    static final Duration DEFAULT_STOP_TIMEOUT = Duration.ofSeconds(30);

    /** One poll and what follows; returns the number of batches written so far. */
    interface Batch {
        int handle(int batches) throws IOException, InterruptedException;
    }

    private volatile boolean running = true;
    private final CountDownLatch stopping = new CountDownLatch(1);
    private final CountDownLatch ended = new CountDownLatch(1);
    private volatile Thread runner;

    /**
     * On the loop's thread: {@code subscribe}, then {@code batch} until {@link #stop}, then {@code close}.
     *
     * @throws UncheckedIOException when the agent did not answer within the claims' patience, or rejected a call
     */
    void run(Runnable subscribe, Batch batch, Runnable close) {
        runner = Thread.currentThread();
        subscribe.run();
        int batches = 0;
        try {
            while (running) {
                batches = batch.handle(batches);
            }
        } catch (WakeupException stopping) {
            // stop() was called
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (IOException e) {
            throw new UncheckedIOException("claiming at the agent failed; nothing was skipped", e);
        } finally {
            try {
                close.run();
            } finally {
                ended.countDown();
            }
        }
    }

    /** False once {@link #stop} was called. */
    boolean running() {
        return running;
    }

    /** Counted down by {@link #stop}: a back-off waits on it. */
    CountDownLatch stopping() {
        return stopping;
    }

    /**
     * Ends the loop: {@code wakeup} interrupts a poll or a commit under way; then waits up to {@code timeout} for
     * the loop to end. True when it has (or never ran: nothing to wait for); false when the time ran out, or when
     * called on the loop's own thread.
     */
    boolean stop(Duration timeout, Runnable wakeup) {
        if (timeout == null || timeout.isNegative()) {
            throw new IllegalArgumentException("timeout: must be zero or positive, got " + timeout);
        }
        running = false;
        stopping.countDown();
        wakeup.run();
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

    /**
     * Commits a batch. When {@link #stop} came after the loop's last call into the consumer, its wakeup is still
     * pending and the commit throws it; a wakeup is thrown once, so committing again goes through: the batch is
     * committed before the loop ends.
     */
    static void commit(Runnable commit) {
        try {
            commit.run();
        } catch (WakeupException stopped) {
            commit.run();
        }
    }
}
