package dev.dedup.agent.store.embedded;

import static dev.dedup.agent.store.embedded.TestBatches.batch;
import static dev.dedup.agent.store.embedded.TestBatches.join;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import dev.dedup.agent.config.EmbeddedStoreOptions;
import dev.dedup.agent.store.ClaimPolicy;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class EmbeddedStoreStatsTest {

    private static final long WINDOW = 60_000;

    @TempDir
    Path dir;

    private final AtomicLong clock = new AtomicLong(1_700_000_000_000L);

    private EmbeddedStore open() {
        return new EmbeddedStore(new EmbeddedStoreOptions(dir, 4096, 8), clock::get);
    }

    @Test
    void freshStoreDescribesItsFileAndIsEmpty() {
        try (EmbeddedStore store = open()) {
            Map<String, Object> stats = store.stats();
            assertEquals(
                    List.of(
                            "file",
                            "slots",
                            "ways",
                            "sets",
                            "file_bytes",
                            "occupied_slots",
                            "fill",
                            "retention_ids_90",
                            "new_claims_per_second",
                            "estimated_retention_seconds",
                            "range_streams",
                            "range_intervals"),
                    List.copyOf(stats.keySet()));
            assertEquals(0, stats.get("range_streams"));
            assertEquals(0L, stats.get("range_intervals"));
            assertEquals(dir.resolve("claims.slots").toString(), stats.get("file"));
            assertEquals(4096L, stats.get("slots"));
            assertEquals(8, stats.get("ways"));
            assertEquals(512L, stats.get("sets"));
            assertEquals(4096L + 4096 * 16, stats.get("file_bytes"));
            assertEquals(0L, stats.get("occupied_slots"));
            assertEquals(0.0, stats.get("fill"));
            assertEquals(RetentionModel.idsRemembered(8, 512, 0.9), stats.get("retention_ids_90"));
            assertEquals(0.0, stats.get("new_claims_per_second"));
            assertNull(stats.get("estimated_retention_seconds"));
        }
    }

    @Test
    void occupiedSlotsFollowNewClaimsReleasesAndReuse() {
        try (EmbeddedStore store = open()) {
            List<byte[]> ids = TestBatches.randomIds(5, 100);
            join(store.claim(batch("ns", "w1", ids, 0, 100), ClaimPolicy.window(WINDOW)));
            assertEquals(100, store.occupiedSlots());
            assertEquals(100.0 / 4096, store.stats().get("fill"));

            join(store.claim(batch("ns", "w2", ids, 0, 100), ClaimPolicy.window(WINDOW))); // all duplicates
            assertEquals(100, store.occupiedSlots());

            join(store.release(batch("ns", "w1", ids, 0, 10), ClaimPolicy.window(60_000)));
            assertEquals(90, store.occupiedSlots());

            clock.addAndGet(WINDOW + 1000); // expired slots still hold their keys ...
            assertEquals(90, store.occupiedSlots());
            join(store.claim(
                    batch("ns", "w3", ids, 10, 100), ClaimPolicy.window(WINDOW))); // ... and are reused in place
            assertEquals(90, store.occupiedSlots());
        }
    }

    @Test
    void rateOfNewClaimsGivesTheEstimatedRetention() {
        try (EmbeddedStore store = open()) {
            List<byte[]> ids = TestBatches.randomIds(6, 300);
            join(store.claim(batch("ns", "w1", ids, 0, 300), ClaimPolicy.window(WINDOW)));
            join(store.claim(batch("ns", "w1", ids, 0, 300), ClaimPolicy.window(WINDOW))); // retries do not count
            clock.addAndGet(2_000); // three seconds since the store opened
            Map<String, Object> stats = store.stats();
            assertEquals(100.0, stats.get("new_claims_per_second"));
            assertEquals(RetentionModel.idsRemembered(8, 512, 0.9) / 100.0, stats.get("estimated_retention_seconds"));
            clock.addAndGet(61_000);
            assertEquals(0.0, store.stats().get("new_claims_per_second"));
        }
    }

    @Test
    void statsAfterReopenEqualStatsBefore() {
        Map<String, Object> before;
        try (EmbeddedStore store = open()) {
            // 200 ids in 512 sets of 8: no set overflows, so every one of them holds a slot
            List<byte[]> ids = TestBatches.randomIds(7, 200);
            join(store.claim(batch("ns", "w1", ids, 0, 200), ClaimPolicy.window(WINDOW)));
            join(store.release(batch("ns", "w1", ids, 0, 7), ClaimPolicy.window(60_000)));
            before = store.stats();
        }
        try (EmbeddedStore store = open()) {
            Map<String, Object> after = store.stats();
            for (String key : List.of(
                    "file", "slots", "ways", "sets", "file_bytes", "occupied_slots", "fill", "retention_ids_90")) {
                assertEquals(before.get(key), after.get(key), key);
            }
            assertEquals(193L, after.get("occupied_slots"));
        }
    }
}
