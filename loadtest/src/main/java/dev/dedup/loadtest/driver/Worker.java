package dev.dedup.loadtest.driver;

import dev.dedup.loadtest.workload.PreparedBatch;
import dev.dedup.loadtest.workload.VerdictTally;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.HdrHistogram.Histogram;

/**
 * One request in flight at a time: take the next batch, wait until it may go (the batch it repeats ids of is
 * answered; with a fixed rate, its scheduled time has come), send it, await the answer, record the latency
 * and check the verdicts, repeat until the batches run out or the error budget is spent. All of its state is
 * touched only on its own event-loop context.
 *
 * <p>With a fixed rate, latency is counted from the batch's scheduled time, not from when it could be sent,
 * so a stalled store shows in the percentiles rather than hiding in a slower send rate.
 *
 * <p>With {@code resend}, a batch that fails (a 503, a refused connection, a timeout) is sent again after
 * {@value #RESEND_PAUSE_MILLIS} ms, to the next target, until it is answered, as a worker beside its sidecar
 * would; its latency runs until then, and the failures spend no error budget. Items the failed attempt had
 * claimed are then answered {@code retry} (the same owner), which counts as the {@code new} expected.
 */
final class Worker<B> {

    static final long RESEND_PAUSE_MILLIS = 100;

    /** Latencies in microseconds, up to an hour, three significant digits. */
    static Histogram newHistogram() {
        return new Histogram(TimeUnit.HOURS.toMicros(1), 3);
    }

    private final int id;
    private final Context context;
    private final Transport<B> transport;
    private final List<B> bodies;
    private final List<PreparedBatch> batches;
    private final AtomicInteger cursor;
    private final ErrorBudget budget;
    private final Progress progress;
    private final Promise<Void> done = Promise.promise();
    private final Completions completions;
    private final long[] scheduledNanos;
    private final long t0;
    private final boolean resend;
    private final Sampler sampler;

    final Timeline timeline = new Timeline();
    final Histogram latencyMicros = newHistogram();
    final VerdictTally tally = new VerdictTally();
    final Map<String, Long> errors = new TreeMap<>();
    long requests;

    /**
     * {@code scheduledNanos}: when each batch is due, relative to {@code t0}, or null to send as fast as
     * answers come back. {@code sampler}, when not null, hears of every answer.
     */
    Worker(
            int id,
            Context context,
            Transport<B> transport,
            List<B> bodies,
            List<PreparedBatch> batches,
            AtomicInteger cursor,
            ErrorBudget budget,
            Progress progress,
            Completions completions,
            long[] scheduledNanos,
            long t0,
            boolean resend,
            Sampler sampler) {
        this.id = id;
        this.context = context;
        this.transport = transport;
        this.bodies = bodies;
        this.batches = batches;
        this.cursor = cursor;
        this.budget = budget;
        this.progress = progress;
        this.completions = completions;
        this.scheduledNanos = scheduledNanos;
        this.t0 = t0;
        this.resend = resend;
        this.sampler = sampler;
    }

    Future<Void> start() {
        context.runOnContext(v -> next());
        return done.future();
    }

    private void next() {
        int index;
        if (budget.exceeded() || (index = cursor.getAndIncrement()) >= batches.size()) {
            done.tryComplete();
            return;
        }
        sendWhenDue(index);
    }

    private void sendWhenDue(int index) {
        PreparedBatch batch = batches.get(index);
        long now = System.nanoTime();
        long due = scheduledNanos == null ? now : t0 + scheduledNanos[index];
        if (now < due || !completions.allDoneUpTo(batch.dependsOn())) {
            long waitMillis = Math.max(1, (due - now) / 1_000_000);
            context.owner().setTimer(waitMillis, t -> sendWhenDue(index));
            return;
        }
        send(index, scheduledNanos == null ? now : due, 1);
    }

    private void send(int index, long start, int attempt) {
        PreparedBatch batch = batches.get(index);
        Future<byte[]> answer;
        try {
            answer = transport.send(id, bodies.get(index), batch.items());
        } catch (RuntimeException e) {
            answer = Future.failedFuture(e);
        }
        answer.onComplete(ar -> {
            long end = System.nanoTime();
            long micros = (end - start) / 1000;
            requests++;
            if (ar.failed() && resend) {
                failed(ar.cause());
                context.owner().setTimer(RESEND_PAUSE_MILLIS, t -> send(index, start, attempt + 1));
                return;
            }
            completions.complete(index);
            if (ar.succeeded()) {
                micros = Math.max(1, Math.min(micros, latencyMicros.getHighestTrackableValue()));
                latencyMicros.recordValue(micros);
                VerdictTally answered = new VerdictTally();
                if (attempt == 1) {
                    answered.record(batch.expected(), ar.result());
                } else {
                    answered.recordResent(batch.expected(), ar.result());
                }
                tally.add(answered);
                progress.answered(batch.items());
                timeline.record(end - t0, batch.items());
                if (sampler != null) {
                    sampler.answered(micros, batch.items(), answered);
                }
            } else {
                failed(ar.cause());
                budget.spend();
            }
            // Through the context, so that answers completed on the spot (a refused connection) do not
            // deepen the stack batch after batch.
            context.runOnContext(v -> next());
        });
    }

    private void failed(Throwable cause) {
        String reason = cause instanceof RequestFailure f
                ? f.reason()
                : "io:" + cause.getClass().getSimpleName();
        errors.merge(reason, 1L, Long::sum);
        progress.failed();
        if (sampler != null) {
            sampler.failed();
        }
    }
}
