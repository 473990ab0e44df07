package dev.dedup.agent.store.redis.access;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dedup.agent.testing.FakeClock;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class RetryTest {

    /** Pauses that run when the test says so, each moving the clock by its length; refused once closed. */
    private static final class FakePauses implements Retry.Pauses {
        final FakeClock clock = new FakeClock(0);
        final List<Long> taken = new ArrayList<>();
        private final Deque<Runnable> due = new ArrayDeque<>();
        boolean closed;

        @Override
        public void after(long millis, Runnable then) {
            if (closed) {
                throw new RejectedExecutionException("closed");
            }
            taken.add(millis);
            due.add(() -> {
                clock.advance(Duration.ofMillis(millis));
                then.run();
            });
        }

        void runDue() {
            while (!due.isEmpty()) {
                due.poll().run();
            }
        }
    }

    /** Tries that fail with "busy n" (n counted from 1) until try {@code succeeding}, which answers "ok n". */
    private static final class Tries {
        final AtomicInteger made = new AtomicInteger();
        final int succeeding;

        Tries(int succeeding) {
            this.succeeding = succeeding;
        }

        CompletionStage<String> next() {
            int n = made.incrementAndGet();
            return n >= succeeding
                    ? CompletableFuture.completedFuture("ok " + n)
                    : CompletableFuture.failedFuture(new IllegalStateException("busy " + n));
        }
    }

    private static final Retry.Again<Object> ON_FAILURE = (result, failure, pauseMillis) -> failure != null;

    private static Throwable failureOf(CompletionStage<?> stage) {
        CompletionException e = assertThrows(
                CompletionException.class, () -> stage.toCompletableFuture().join());
        return RedisFailures.unwrap(e);
    }

    @Test
    void triesAgainAfterEachDeclaredPause_andStopsAtTheFirstSuccess() {
        FakePauses pauses = new FakePauses();
        Tries tries = new Tries(3);
        CompletionStage<String> done = new Retry(8, 10, 100).run(pauses, tries::next, ON_FAILURE);
        assertFalse(done.toCompletableFuture().isDone(), "the pause is the scheduler's, not the caller's");
        assertEquals(1, tries.made.get());
        pauses.runDue();
        assertEquals("ok 3", done.toCompletableFuture().join());
        assertEquals(3, tries.made.get());
        assertEquals(List.of(10L, 20L), pauses.taken);
        assertEquals(30, pauses.clock.getAsLong());
    }

    @Test
    void givesUpWithTheLastFailureOnceTheAttemptsAreSpent() {
        FakePauses pauses = new FakePauses();
        Tries tries = new Tries(Integer.MAX_VALUE);
        CompletionStage<String> done = new Retry(5, 10, 30).run(pauses, tries::next, ON_FAILURE);
        pauses.runDue();
        assertEquals("busy 5", failureOf(done).getMessage());
        assertEquals(5, tries.made.get());
        assertEquals(List.of(10L, 20L, 30L, 30L), pauses.taken);
    }

    @Test
    void aFailureThePredicateCallsFinalIsNotTriedAgain() {
        FakePauses pauses = new FakePauses();
        Tries tries = new Tries(Integer.MAX_VALUE);
        CompletionStage<String> done = Retry.every(8, 10).run(pauses, tries::next, (r, failure, p) -> false);
        assertEquals("busy 1", failureOf(done).getMessage());
        assertEquals(1, tries.made.get());
        assertTrue(pauses.taken.isEmpty());
    }

    @Test
    void aResultThePredicateRefusesIsTriedAgain_andTheLastOneStandsWhenTheAttemptsAreSpent() {
        FakePauses pauses = new FakePauses();
        AtomicInteger made = new AtomicInteger();
        CompletionStage<Integer> done = Retry.every(4, 0)
                .run(
                        pauses,
                        () -> CompletableFuture.completedFuture(made.incrementAndGet()),
                        (n, failure, p) -> failure == null && n > 0);
        pauses.runDue();
        assertEquals(4, done.toCompletableFuture().join());
        assertEquals(List.of(0L, 0L, 0L), pauses.taken);
    }

    @Test
    void thePredicateIsToldThePauseItWouldWait_andMayRefuseAPauseTooLong() {
        FakePauses pauses = new FakePauses();
        Tries tries = new Tries(Integer.MAX_VALUE);
        List<Long> offered = new ArrayList<>();
        CompletionStage<String> done = new Retry(8, 10, 100).run(pauses, tries::next, (r, failure, pauseMillis) -> {
            offered.add(pauseMillis);
            return pauseMillis < 40;
        });
        pauses.runDue();
        assertEquals("busy 3", failureOf(done).getMessage());
        assertEquals(List.of(10L, 20L, 40L), offered);
        assertEquals(List.of(10L, 20L), pauses.taken);
    }

    @Test
    void aTryThatThrowsIsAFailedTry() {
        FakePauses pauses = new FakePauses();
        AtomicInteger made = new AtomicInteger();
        CompletionStage<String> done = Retry.every(3, 5)
                .run(
                        pauses,
                        () -> {
                            if (made.incrementAndGet() < 2) {
                                throw new IllegalStateException("refused at once");
                            }
                            return CompletableFuture.completedFuture("ok");
                        },
                        ON_FAILURE);
        pauses.runDue();
        assertEquals("ok", done.toCompletableFuture().join());
        assertEquals(2, made.get());
    }

    @Test
    void whenThePausesAreRefusedTheLastFailureStands() {
        FakePauses pauses = new FakePauses();
        pauses.closed = true;
        Tries tries = new Tries(Integer.MAX_VALUE);
        CompletionStage<String> done = new Retry(8, 10, 100).run(pauses, tries::next, ON_FAILURE);
        assertEquals("busy 1", failureOf(done).getMessage());
        assertEquals(1, tries.made.get());
    }

    @Test
    void pausesDoubleUpToTheirBound_andTheLastTryHasNoSuccessor() {
        Retry retry = new Retry(8, 10, 100);
        assertEquals(10, retry.pauseMillis(1));
        assertEquals(20, retry.pauseMillis(2));
        assertEquals(80, retry.pauseMillis(4));
        assertEquals(100, retry.pauseMillis(5));
        assertEquals(100, retry.pauseMillis(7));
        assertTrue(retry.another(7));
        assertFalse(retry.another(8));
    }

    @Test
    void aFixedPauseStaysFixed_evenAtZero() {
        assertEquals(200, Retry.every(10, 200).pauseMillis(9));
        assertEquals(0, Retry.every(8, 0).pauseMillis(5));
        assertFalse(Retry.every(1, 0).another(1));
    }

    @Test
    void aRetryWithoutAnAttemptOrWithShrinkingPausesIsRefused() {
        assertThrows(IllegalArgumentException.class, () -> new Retry(0, 10, 100));
        assertThrows(IllegalArgumentException.class, () -> new Retry(3, 100, 10));
        assertThrows(IllegalArgumentException.class, () -> new Retry(3, -1, 10));
    }
}
