package dev.dedup.loadtest.driver;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class CompletionsTest {

    @Test
    void aBatchMayGoOnlyWhenEveryBatchUpToItsDependencyIsDone() {
        Completions c = new Completions();
        assertTrue(c.allDoneUpTo(-1), "no dependency");
        c.complete(1);
        c.complete(2);
        // Batch 2 is done but batch 0 is still in flight: a batch depending on 2 may hold ids of batch 0 too.
        assertFalse(c.allDoneUpTo(2));
        assertFalse(c.allDoneUpTo(0));
        c.complete(0);
        assertTrue(c.allDoneUpTo(2));
        assertFalse(c.allDoneUpTo(3));
    }
}
