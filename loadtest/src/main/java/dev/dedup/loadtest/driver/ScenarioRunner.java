package dev.dedup.loadtest.driver;

import dev.dedup.loadtest.report.ScenarioResult;
import dev.dedup.loadtest.workload.PreparedBatch;
import dev.dedup.loadtest.workload.VerdictTally;
import dev.dedup.loadtest.workload.Workload;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.atomic.AtomicInteger;
import org.HdrHistogram.Histogram;

/**
 * Runs one workload with a number of workers and measures it. The clock starts after every body has been
 * handed to the transport's {@link Transport#prepare} and stops when the last answer is in.
 */
public final class ScenarioRunner {

    private final Vertx vertx;
    private final int workers;
    private final ErrorBudget budget;
    private final Progress progress;
    private final boolean resend;
    private final Sampler sampler;

    /**
     * {@code resend}: send a failed batch again until it is answered ({@link Worker}); {@code sampler}, when not
     * null, samples the run from the first batch sent.
     */
    public ScenarioRunner(
            Vertx vertx, int workers, ErrorBudget budget, Progress progress, boolean resend, Sampler sampler) {
        this.vertx = vertx;
        this.workers = workers;
        this.budget = budget;
        this.progress = progress;
        this.resend = resend;
        this.sampler = sampler;
    }

    /**
     * Sends {@code workload} through {@code transport}; blocks the calling thread (never an event loop).
     * {@code idsPerSecond} above 0 offers that fixed load (each batch due at its share of the schedule)
     * instead of sending as fast as answers come back.
     */
    public <B> ScenarioResult run(Workload workload, Transport<B> transport, int batchSize, double idsPerSecond) {
        if (Vertx.currentContext() != null) {
            throw new IllegalStateException("run waits for the scenario: call it from a plain thread");
        }
        List<PreparedBatch> batches = workload.batches();
        List<B> bodies = new ArrayList<>(batches.size());
        for (PreparedBatch batch : batches) {
            bodies.add(transport.prepare(batch.body()));
        }
        long[] scheduled = idsPerSecond > 0 ? schedule(batches, idsPerSecond) : null;
        AtomicInteger cursor = new AtomicInteger();
        Completions completions = new Completions();
        List<Worker<B>> started = new ArrayList<>(workers);
        progress.phase(workload.name(), workload.ids());
        if (sampler != null) {
            sampler.start();
        }
        long t0 = System.nanoTime();
        for (int w = 0; w < workers; w++) {
            // A fresh context per worker: Vert.x spreads them over its event loops.
            started.add(new Worker<>(
                    w,
                    vertx.getOrCreateContext(),
                    transport,
                    bodies,
                    batches,
                    cursor,
                    budget,
                    progress,
                    completions,
                    scheduled,
                    t0,
                    resend,
                    sampler));
        }
        List<Future<Void>> finished = new ArrayList<>(workers);
        for (Worker<B> worker : started) {
            finished.add(worker.start());
        }
        try {
            Future.all(finished).toCompletionStage().toCompletableFuture().get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while running " + workload.name(), e);
        } catch (ExecutionException e) {
            throw new IllegalStateException("worker failed in " + workload.name(), e.getCause());
        }
        double seconds = (System.nanoTime() - t0) / 1e9;

        Histogram latency = Worker.newHistogram();
        VerdictTally tally = new VerdictTally();
        Map<String, Long> errors = new TreeMap<>();
        Timeline timeline = new Timeline();
        long requests = 0;
        for (Worker<B> worker : started) {
            timeline.add(worker.timeline);
            latency.add(worker.latencyMicros);
            tally.add(worker.tally);
            worker.errors.forEach((reason, n) -> errors.merge(reason, n, Long::sum));
            requests += worker.requests;
        }
        // Workers only leave batches untaken when the error budget ran out.
        boolean aborted = cursor.get() < batches.size();
        return new ScenarioResult(
                workload.name(),
                tally.total(),
                requests,
                seconds,
                latency,
                tally,
                errors,
                batchSize,
                workers,
                workload.encoding(),
                aborted,
                timeline.idsPerTick(),
                idsPerSecond,
                -1,
                -1);
    }

    /** When each batch is due, in nanoseconds from the start, for a steady {@code idsPerSecond}. */
    static long[] schedule(List<PreparedBatch> batches, double idsPerSecond) {
        long[] due = new long[batches.size()];
        long before = 0;
        for (int b = 0; b < due.length; b++) {
            due[b] = (long) (before * 1e9 / idsPerSecond);
            before += batches.get(b).items();
        }
        return due;
    }
}
