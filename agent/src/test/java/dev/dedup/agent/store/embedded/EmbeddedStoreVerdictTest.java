package dev.dedup.agent.store.embedded;

import static dev.dedup.agent.store.embedded.TestBatches.batch;
import static dev.dedup.agent.store.embedded.TestBatches.codes;
import static dev.dedup.agent.store.embedded.TestBatches.join;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.dedup.agent.config.EmbeddedStoreOptions;
import dev.dedup.agent.store.ClaimPolicy;
import dev.dedup.agent.store.StoreUnavailableException;
import java.nio.file.Path;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class EmbeddedStoreVerdictTest {

    private static final int NEW = 0;
    private static final int RETRY = 1;
    private static final int DUPLICATE = 2;
    private static final long WINDOW = 60_000;
    /** Half a second past a whole second, so rounding up to whole seconds is visible. */
    private static final long T0 = 1_700_000_000_500L;

    @TempDir
    Path dir;

    private final AtomicLong clock = new AtomicLong(T0);
    private EmbeddedStore store;

    @AfterEach
    void closeStore() {
        if (store != null) {
            store.close();
        }
    }

    private EmbeddedStore open() {
        store = new EmbeddedStore(new EmbeddedStoreOptions(dir, 4096, 8), clock::get);
        return store;
    }

    /** One set of four slots: every id competes for the same room. */
    private EmbeddedStore openOneSet() {
        store = new EmbeddedStore(dir, 1, 4, clock::get);
        return store;
    }

    private byte[] claim(String owner, String... ids) {
        return join(store.claim(batch("ns", owner, ids), ClaimPolicy.window(WINDOW)));
    }

    private byte[] claimFor(long window, String owner, String... ids) {
        return join(store.claim(batch("ns", owner, ids), ClaimPolicy.window(window)));
    }

    @Test
    void newThenRetryForSameOwnerThenDuplicateForAnother() {
        open();
        assertArrayEquals(codes(NEW), claim("w1", "m1"));
        assertArrayEquals(codes(RETRY), claim("w1", "m1"));
        assertArrayEquals(codes(DUPLICATE), claim("w2", "m1"));
    }

    @Test
    void repeatsInOneBatchAreDecidedInOrder() {
        open();
        assertArrayEquals(codes(NEW, NEW, RETRY, RETRY), claim("w1", "a", "b", "a", "b"));
        assertArrayEquals(codes(DUPLICATE, NEW), claim("w2", "a", "c"));
    }

    @Test
    void releaseByTheOwnerMakesTheNextClaimNew() {
        open();
        claim("w1", "m1", "m2");
        assertArrayEquals(
                codes(0, 0), join(store.release(batch("ns", "w2", "m1", "never-claimed"), ClaimPolicy.window(60_000))));
        assertArrayEquals(codes(DUPLICATE), claim("w2", "m1"));
        assertArrayEquals(codes(1, 0), join(store.release(batch("ns", "w1", "m1", "m1"), ClaimPolicy.window(60_000))));
        assertArrayEquals(codes(NEW), claim("w2", "m1"));
        assertArrayEquals(codes(RETRY), claim("w1", "m2"));
    }

    @Test
    void namespacesAreIsolated() {
        open();
        assertArrayEquals(codes(NEW), join(store.claim(batch("a", "w1", "m1"), ClaimPolicy.window(WINDOW))));
        assertArrayEquals(codes(NEW), join(store.claim(batch("b", "w2", "m1"), ClaimPolicy.window(WINDOW))));
        assertArrayEquals(codes(DUPLICATE), join(store.claim(batch("a", "w2", "m1"), ClaimPolicy.window(WINDOW))));
    }

    @Test
    void claimLivesForItsWindowRoundedUpToTheNextSecond() {
        open();
        assertArrayEquals(codes(NEW), claim("w1", "m1"));
        clock.set(T0 + WINDOW - 1);
        assertArrayEquals(codes(DUPLICATE), claim("w2", "m1"));
        clock.set(T0 + WINDOW);
        assertArrayEquals(codes(DUPLICATE), claim("w2", "m1"));
        clock.set(T0 + WINDOW + 1000);
        assertArrayEquals(codes(NEW), claim("w2", "m1"));
        assertArrayEquals(codes(RETRY), claim("w2", "m1"));
    }

    @Test
    void claimOnAWholeSecondLivesExactlyItsWindow() {
        open();
        long t = T0 + 499_500; // a whole second
        clock.set(t);
        claim("w1", "m1");
        clock.set(t + WINDOW - 1);
        assertArrayEquals(codes(DUPLICATE), claim("w2", "m1"));
        clock.set(t + WINDOW);
        assertArrayEquals(codes(NEW), claim("w2", "m1"));
    }

    @Test
    void releaseOfAnExpiredClaimReleasesNothing() {
        open();
        claim("w1", "m1");
        clock.set(T0 + WINDOW + 1000);
        assertArrayEquals(codes(0), join(store.release(batch("ns", "w1", "m1"), ClaimPolicy.window(60_000))));
    }

    @Test
    void fullSetReplacesExpiredSlotsBeforeLiveOnes() {
        openOneSet();
        claimFor(3_600_000, "w1", "live1");
        claimFor(1_000, "w1", "short1", "short2");
        claimFor(3_600_000, "w1", "live2");
        clock.addAndGet(5_000);
        assertArrayEquals(codes(NEW, NEW), claim("w1", "new1", "new2"));
        assertArrayEquals(
                codes(DUPLICATE, DUPLICATE, DUPLICATE, DUPLICATE), claim("w2", "live1", "live2", "new1", "new2"));
    }

    @Test
    void fullSetReplacesTheClaimExpiringSoonestWhenNoneExpired() {
        openOneSet();
        claimFor(3_600_000, "w1", "old-but-long");
        claimFor(600_000, "w1", "soonest");
        claimFor(3_600_000, "w1", "c", "d");
        assertArrayEquals(codes(NEW), claim("w1", "e"));
        assertArrayEquals(
                codes(DUPLICATE, DUPLICATE, DUPLICATE, DUPLICATE), claim("w2", "old-but-long", "c", "d", "e"));
        assertArrayEquals(codes(NEW), claim("w2", "soonest"));
    }

    @Test
    void fullSetForgetsTheOldestFirstWhenExpiriesTie() {
        openOneSet();
        claim("w1", "1", "2", "3", "4");
        release("w1", "2"); // a hole must not disturb the order
        claim("w1", "5", "6");
        // 5 took the hole after the older claims; 6 found the set full and replaced 1, the oldest.
        assertArrayEquals(codes(DUPLICATE, DUPLICATE, DUPLICATE, DUPLICATE), claim("w2", "3", "4", "5", "6"));
        assertArrayEquals(codes(NEW), claim("w2", "1")); // evicts 3
        assertArrayEquals(codes(NEW, DUPLICATE), claim("w2", "3", "5")); // 3 evicts 4
        assertArrayEquals(codes(NEW), claim("w2", "4"));
    }

    @Test
    void expiredCopyOfTheSameIdIsReusedNotDuplicated() {
        openOneSet();
        claimFor(1_000, "w1", "m1");
        clock.addAndGet(5_000);
        assertArrayEquals(codes(NEW), claim("w2", "m1"));
        assertEquals(1, store.occupiedSlots());
        assertArrayEquals(codes(1), join(store.release(batch("ns", "w2", "m1"), ClaimPolicy.window(60_000))));
        assertArrayEquals(codes(NEW), claim("w3", "m1"));
    }

    @Test
    void closedStoreFailsEveryCall() {
        open();
        store.close();
        ExecutionException e = assertThrows(
                ExecutionException.class,
                () -> store.claim(batch("ns", "w1", "m1"), ClaimPolicy.window(WINDOW))
                        .toCompletableFuture()
                        .get());
        assertInstanceOf(StoreUnavailableException.class, e.getCause());
        assertEquals("embedded store is closed", e.getCause().getMessage());
        assertThrows(
                ExecutionException.class,
                () -> store.release(batch("ns", "w1", "m1"), ClaimPolicy.window(60_000))
                        .toCompletableFuture()
                        .get());
        assertThrows(
                ExecutionException.class,
                () -> store.ready().toCompletableFuture().get());
    }

    @Test
    void openStoreIsReadyAndSaysItsKind() {
        open();
        join(store.ready());
        assertEquals("embedded", store.kind());
    }

    private void release(String owner, String... ids) {
        join(store.release(batch("ns", owner, ids), ClaimPolicy.window(60_000)));
    }
}
