package dev.dedup.agent.store.embedded;

import static dev.dedup.agent.store.embedded.TestBatches.batch;
import static dev.dedup.agent.store.embedded.TestBatches.join;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.dedup.agent.config.EmbeddedStoreOptions;
import dev.dedup.agent.store.ClaimPolicy;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicIntegerArray;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class EmbeddedStoreConcurrencyTest {

    private static final int IDS = 50_000;
    private static final int THREADS = 4;
    private static final int BATCH = 500;

    @TempDir
    Path dir;

    @Test
    void concurrentOwnersOfTheSameIdsGetExactlyOneNewEach() throws Exception {
        List<byte[]> ids = TestBatches.randomIds(11, IDS);
        AtomicIntegerArray newPerId = new AtomicIntegerArray(IDS);
        // 2^20 slots: 50,000 ids never fill a set, so nothing is forgotten and re-answered new.
        try (EmbeddedStore store =
                new EmbeddedStore(new EmbeddedStoreOptions(dir, 1 << 20, 8), () -> 1_700_000_000_000L)) {
            ExecutorService pool = Executors.newFixedThreadPool(THREADS);
            CountDownLatch start = new CountDownLatch(1);
            List<Future<?>> done = new ArrayList<>();
            for (int t = 0; t < THREADS; t++) {
                String owner = "worker-" + t;
                List<Integer> order = new ArrayList<>();
                for (int i = 0; i < IDS; i += BATCH) {
                    order.add(i);
                }
                Collections.shuffle(order, new Random(t)); // each thread meets the ids in another order
                done.add(pool.submit(() -> {
                    start.await();
                    for (int from : order) {
                        byte[] verdicts = join(
                                store.claim(batch("ns", owner, ids, from, from + BATCH), ClaimPolicy.window(60_000)));
                        for (int k = 0; k < verdicts.length; k++) {
                            if (verdicts[k] == 0) {
                                newPerId.incrementAndGet(from + k);
                            }
                        }
                    }
                    return null;
                }));
            }
            start.countDown();
            for (Future<?> f : done) {
                f.get();
            }
            pool.shutdown();
            for (int i = 0; i < IDS; i++) {
                assertEquals(1, newPerId.get(i), "new verdicts for id #" + i);
            }
            assertEquals(IDS, store.occupiedSlots());
        }
    }
}
