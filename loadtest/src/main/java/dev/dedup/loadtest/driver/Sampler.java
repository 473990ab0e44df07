package dev.dedup.loadtest.driver;

import dev.dedup.loadtest.workload.VerdictTally;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.OutputStreamWriter;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.Recorder;

/**
 * The run as it goes, for long runs ({@code --samples}): every interval, one JSON line appended to a file, with the
 * wall-clock second, the ids answered in the interval and their rate, the latency percentiles of the interval's
 * answers, and, since the start, the wrong verdicts the ledger counted and the failed requests; a first line at 0 s
 * says that sending has started. Workers report every
 * answer from their event loops; a daemon thread of its own writes, and flushes each line, so that a run stopped
 * midway leaves what it measured.
 */
public final class Sampler implements AutoCloseable {

    private final Path file;
    private final long everyNanos;
    private final Recorder latency = new Recorder(TimeUnit.HOURS.toMicros(1), 3);
    private final LongAdder ids = new LongAdder();
    private final LongAdder falseDrops = new LongAdder();
    private final LongAdder missedDuplicates = new LongAdder();
    private final LongAdder unexpected = new LongAdder();
    private final LongAdder failedRequests = new LongAdder();
    private final CountDownLatch closed = new CountDownLatch(1);
    private Thread thread;
    private long startNanos;

    /** Samples every {@code every} into {@code file} (created, or appended to) once {@link #start()} is called. */
    public Sampler(Path file, Duration every) {
        this.file = file;
        this.everyNanos = every.toNanos();
    }

    /** Starts the clock and the writing thread; later calls do nothing. */
    public synchronized void start() {
        if (thread != null) {
            return;
        }
        startNanos = System.nanoTime();
        thread = new Thread(this::loop, "loadtest-sampler");
        thread.setDaemon(true);
        thread.start();
    }

    void answered(long micros, int items, VerdictTally verdicts) {
        latency.recordValue(micros);
        ids.add(items);
        falseDrops.add(verdicts.falseDrops());
        missedDuplicates.add(verdicts.missedDuplicates());
        unexpected.add(verdicts.unexpected());
    }

    void failed() {
        failedRequests.increment();
    }

    private void loop() {
        try (Writer out = new OutputStreamWriter(new FileOutputStream(file.toFile(), true), StandardCharsets.UTF_8)) {
            // A first line at once, at 0 s: the run has started sending.
            out.write(line(startNanos, 0));
            out.flush();
            long last = startNanos;
            long next = startNanos + everyNanos;
            boolean closing = false;
            while (!closing) {
                long wait = next - System.nanoTime();
                try {
                    closing = closed.await(Math.max(0, wait), TimeUnit.NANOSECONDS);
                } catch (InterruptedException e) {
                    closing = true;
                }
                long now = System.nanoTime();
                out.write(line(now, now - last));
                out.flush();
                last = now;
                next += everyNanos;
            }
        } catch (IOException e) {
            throw new UncheckedIOException("--samples: cannot write " + file, e);
        }
    }

    private String line(long nowNanos, long intervalNanos) {
        Histogram h = latency.getIntervalHistogram();
        long n = ids.sumThenReset();
        double seconds = Math.max(1e-9, intervalNanos / 1e9);
        return String.format(
                Locale.ROOT,
                "{\"epoch_s\":%d,\"elapsed_s\":%.1f,\"ids\":%d,\"ids_per_s\":%.0f,\"p50_ms\":%.2f,\"p99_ms\":%.2f,"
                        + "\"p999_ms\":%.2f,\"max_ms\":%.2f,\"false_drops\":%d,\"missed_duplicates\":%d,"
                        + "\"unexpected\":%d,\"failed_requests\":%d}%n",
                System.currentTimeMillis() / 1000,
                (nowNanos - startNanos) / 1e9,
                n,
                n / seconds,
                h.getValueAtPercentile(50) / 1000.0,
                h.getValueAtPercentile(99) / 1000.0,
                h.getValueAtPercentile(99.9) / 1000.0,
                h.getMaxValue() / 1000.0,
                falseDrops.sum(),
                missedDuplicates.sum(),
                unexpected.sum(),
                failedRequests.sum());
    }

    /** Writes the last, partial interval and stops. */
    @Override
    public void close() {
        Thread t;
        synchronized (this) {
            t = thread;
        }
        closed.countDown();
        if (t != null) {
            try {
                t.join(5000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
