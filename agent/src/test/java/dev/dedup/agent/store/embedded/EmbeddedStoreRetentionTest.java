package dev.dedup.agent.store.embedded;

import static dev.dedup.agent.store.embedded.TestBatches.batch;
import static dev.dedup.agent.store.embedded.TestBatches.join;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dedup.agent.config.EmbeddedStoreOptions;
import dev.dedup.agent.store.ClaimPolicy;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The table at small scale, with the ratio of the design's target (6.5 M slots, 3.6 M later ids: one
 * hour at 1,000 ids/s): after 0.55 × slots later ids, an 8-way table still answers {@code retry} for 90 %
 * of earlier ids, as {@link RetentionModel} says, and a direct-mapped one does not.
 */
class EmbeddedStoreRetentionTest {

    private static final int SLOTS = 65_536;
    private static final int TRACKED = 2_048;
    private static final int LATER = (int) Math.round(SLOTS * 0.55);
    private static final int BATCH = 1_000;

    @TempDir
    Path dir;

    @Test
    void eightWayTableRemembersNinetyPercentAfterFiftyFivePercentOfItsSlotsInLaterIds() {
        double measured;
        EmbeddedStoreOptions options = new EmbeddedStoreOptions(dir, SLOTS, 8);
        try (EmbeddedStore store = new EmbeddedStore(options, () -> 1_700_000_000_000L)) {
            measured = rememberedFraction(store);
        }
        double predicted = expected(8, SLOTS / 8);
        System.out.printf(
                "8-way, %d slots, %d later ids: remembered %.4f, model %.4f%n", SLOTS, LATER, measured, predicted);
        assertTrue(measured >= 0.90, "remembered " + measured);
        assertEquals(predicted, measured, 0.03);
    }

    @Test
    void directMappedTableOfTheSameSizeForgetsFarMore() {
        double measured;
        try (EmbeddedStore store = new EmbeddedStore(dir, SLOTS, 1, () -> 1_700_000_000_000L)) {
            measured = rememberedFraction(store);
        }
        double predicted = expected(1, SLOTS);
        System.out.printf(
                "1-way, %d slots, %d later ids: remembered %.4f, model %.4f%n", SLOTS, LATER, measured, predicted);
        assertEquals(predicted, measured, 0.03);
        assertTrue(measured < 0.65, "remembered " + measured);
    }

    /**
     * Claims the tracked ids, then the later ones, then the tracked ids again with the same owner, and
     * returns the share answered retry. The re-claims run newest first: a forgotten id claimed again
     * pushes out the oldest id of its set, and every older tracked id of that set is already gone, so
     * the check does not disturb what it measures.
     */
    private static double rememberedFraction(EmbeddedStore store) {
        List<byte[]> ids = TestBatches.randomIds(2024, TRACKED + LATER);
        for (int from = 0; from < ids.size(); from += BATCH) {
            int to = Math.min(ids.size(), from + BATCH);
            byte[] v = join(store.claim(batch("ns", "worker", ids, from, to), ClaimPolicy.window(3_600_000)));
            for (byte b : v) {
                assertEquals(0, b, "every first claim is new");
            }
        }
        List<byte[]> tracked = new ArrayList<>(ids.subList(0, TRACKED));
        Collections.reverse(tracked);
        byte[] again = join(store.claim(batch("ns", "worker", tracked, 0, TRACKED), ClaimPolicy.window(3_600_000)));
        int retries = 0;
        for (byte b : again) {
            retries += b == 1 ? 1 : 0;
        }
        return (double) retries / TRACKED;
    }

    /** The model's mean over the tracked ids; the j-th was followed by the tracked ids after it too. */
    private static double expected(int ways, long sets) {
        double sum = 0;
        for (int j = 0; j < TRACKED; j++) {
            sum += RetentionModel.probabilityRemembered(ways, sets, LATER + (TRACKED - 1 - j));
        }
        return sum / TRACKED;
    }
}
