package dev.dedup.loadtest.workload;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class SendPlanTest {

    @Test
    void mixed_sendsEveryOriginalOnceInOrder_andTheRepeatsAfterTheirOriginal() {
        int ids = 200_000;
        int batch = 1000;
        SendPlan plan = SendPlan.mixed(ids, 0.05, 0.02, batch, 50_000, 7);
        int[] firstAt = new int[ids];
        java.util.Arrays.fill(firstAt, -1);
        int originals = 0;
        int seconds = 0;
        int replays = 0;
        int lastOriginal = -1;
        for (int k = 0; k < plan.size(); k++) {
            int i = plan.indexes()[k];
            if (firstAt[i] < 0) {
                assertEquals(Owners.ORIGINAL, plan.copies()[k], "the first copy sent is the original");
                assertEquals(lastOriginal + 1, i, "originals in order");
                lastOriginal = i;
                firstAt[i] = k;
                originals++;
            } else {
                // Repeats due past the end of the stream crowd at its tail, closer to their originals.
                if (i < ids - (SendPlan.MIN_GAP_BATCHES + 1) * batch) {
                    assertTrue(
                            k - firstAt[i] >= SendPlan.MIN_GAP_BATCHES * batch,
                            "a repeat comes batches after its original: " + (k - firstAt[i]));
                }
                if (plan.copies()[k] == Owners.SECOND_WRITE) {
                    seconds++;
                } else {
                    replays++;
                }
            }
        }
        assertEquals(ids, originals);
        assertEquals(0.05 * ids, seconds, 0.05 * ids * 0.1, "about 5 % written twice");
        assertEquals(0.02 * ids, replays, 0.02 * ids * 0.35, "about 2 % of batches replayed");
        assertEquals(0, replays % batch, "whole batches are replayed");
    }

    @Test
    void mixed_isTheSameForTheSameSeed_andRatesOfZeroGiveTheColdPlan() {
        SendPlan a = SendPlan.mixed(10_000, 0.1, 0.1, 100, 1000, 3);
        SendPlan b = SendPlan.mixed(10_000, 0.1, 0.1, 100, 1000, 3);
        assertArrayEquals(a.indexes(), b.indexes());
        assertArrayEquals(a.copies(), b.copies());
        SendPlan none = SendPlan.mixed(1000, 0, 0, 100, 1000, 3);
        assertArrayEquals(SendPlan.uniform(1000, Owners.ORIGINAL).indexes(), none.indexes());
    }

    @Test
    void aLedgerFollowingTheMixedPlan_expectsNewOnceAndRetryOrDuplicateAfter() {
        SendPlan plan = SendPlan.mixed(5000, 0.2, 0.1, 100, 1000, 11);
        Ledger ledger = new Ledger(5000);
        long[] counts = new long[3];
        for (int k = 0; k < plan.size(); k++) {
            counts[ledger.send(plan.indexes()[k], plan.copies()[k]).code()]++;
        }
        assertEquals(5000, counts[0]);
        assertTrue(counts[1] > 0 && counts[2] > 0, java.util.Arrays.toString(counts));
    }
}
