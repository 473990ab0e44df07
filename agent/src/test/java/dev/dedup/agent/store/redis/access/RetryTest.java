package dev.dedup.agent.store.redis.access;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class RetryTest {

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
