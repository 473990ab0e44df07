package dev.dedup.agent.store.redis.access;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.Supplier;

/**
 * How the Redis tier tries again what failed for a moment: at most {@code attempts} tries in all, pausing {@code
 * firstPauseMillis} after the first, twice as long after each next one, never longer than {@code maxPauseMillis}.
 * Used for a Cluster slot being migrated ({@code TRYAGAIN}), a fingerprint table resized under a call, and two
 * agents stamping the shards' record at the same start; {@link #run} is the one loop all three go through.
 */
public record Retry(int attempts, long firstPauseMillis, long maxPauseMillis) {

    public Retry {
        if (attempts < 1 || firstPauseMillis < 0 || maxPauseMillis < firstPauseMillis) {
            throw new IllegalArgumentException("a retry needs an attempt and pauses that grow: " + attempts + ", "
                    + firstPauseMillis + " ms, " + maxPauseMillis + " ms");
        }
    }

    /** Where a retry waits out its pauses: the housekeeping thread ({@link Housekeeping#after}), or a test's. */
    @FunctionalInterface
    public interface Pauses {
        /**
         * Runs {@code then} once {@code millis} have passed, without blocking the caller.
         *
         * @throws RejectedExecutionException when it runs nothing more (the store is closing)
         */
        void after(long millis, Runnable then);
    }

    /** Whether a try's outcome is worth another. */
    @FunctionalInterface
    public interface Again<T> {
        /**
         * Asked only when another try is allowed: whether the try that ended with {@code result}, or with {@code
         * failure} when it is not null, is tried again after {@code pauseMillis}.
         */
        boolean test(T result, Throwable failure, long pauseMillis);
    }

    /** The same pause after every try. */
    public static Retry every(int attempts, long pauseMillis) {
        return new Retry(attempts, pauseMillis, pauseMillis);
    }

    /** Whether try {@code attempt} (counted from 1) may be followed by another. */
    public boolean another(int attempt) {
        return attempt < attempts;
    }

    /** The pause after try {@code attempt} (counted from 1). */
    public long pauseMillis(int attempt) {
        long pause = firstPauseMillis;
        for (int i = 1; i < attempt && pause < maxPauseMillis; i++) {
            pause *= 2;
        }
        return Math.min(pause, maxPauseMillis);
    }

    /**
     * Tries {@code attempt} until {@code again} says its outcome is final or the tries are spent, pausing between
     * tries on {@code pauses}; completes with the last outcome, result or failure. Nothing here blocks: a try
     * starts on the thread of {@code pauses} (the first on the caller's), and should not block it either. When
     * {@code pauses} refuses (the store is closing), the last outcome stands.
     */
    public <T> CompletionStage<T> run(
            Pauses pauses, Supplier<? extends CompletionStage<T>> attempt, Again<? super T> again) {
        CompletableFuture<T> done = new CompletableFuture<>();
        tryNow(pauses, attempt, again, 1, done);
        return done;
    }

    private <T> void tryNow(
            Pauses pauses,
            Supplier<? extends CompletionStage<T>> attempt,
            Again<? super T> again,
            int n,
            CompletableFuture<T> done) {
        CompletionStage<T> tried;
        try {
            tried = attempt.get();
        } catch (RuntimeException e) {
            tried = CompletableFuture.failedFuture(e);
        }
        tried.whenComplete((result, failure) -> {
            long pause = pauseMillis(n);
            if (another(n) && again.test(result, failure, pause)) {
                try {
                    pauses.after(pause, () -> tryNow(pauses, attempt, again, n + 1, done));
                    return;
                } catch (RejectedExecutionException closing) {
                    // no more pauses: the outcome stands
                }
            }
            if (failure != null) {
                done.completeExceptionally(failure);
            } else {
                done.complete(result);
            }
        });
    }
}
