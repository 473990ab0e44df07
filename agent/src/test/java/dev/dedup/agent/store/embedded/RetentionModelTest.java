package dev.dedup.agent.store.embedded;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class RetentionModelTest {

    @Test
    void eightWaysNeedAMeanLoadOfAboutFourPointSevenForNinetyPercent() {
        assertEquals(4.7, RetentionModel.meanLoadFor(8, 0.9), 0.05);
    }

    @Test
    void sixPointFiveMillionSlotsRememberAboutNinetyTwoPercentAfterAnHourAtOneThousandPerSecond() {
        assertEquals(0.92, RetentionModel.probabilityRemembered(8, 812_500, 3_600_000), 0.005);
    }

    @Test
    void directMappedTableNeedsAbout34MillionSlotsForNinetyPercentAfterAnHour() {
        long slots = RetentionModel.slotsNeeded(1, 3_600_000, 0.9);
        assertEquals(34.2e6, slots, 0.1e6);
        assertEquals(0.9, RetentionModel.probabilityRemembered(1, slots, 3_600_000), 1e-6);
    }

    @Test
    void directMappedTableIsTheExponentialOfNSQsFixedSizeHashMap() {
        long n = 1_000_000;
        for (long x : new long[] {0, 1_000, 100_000, 1_000_000, 5_000_000}) {
            double exact = Math.pow(1 - 1.0 / n, x);
            assertEquals(exact, RetentionModel.probabilityRemembered(1, n, x), 1e-6);
        }
    }

    @Test
    void eightWaysNeedAboutSixPointTwoMillionSlotsWhereDirectMappingNeeds34Million() {
        long eightWay = RetentionModel.slotsNeeded(8, 3_600_000, 0.9);
        assertEquals(6.15e6, eightWay, 0.1e6);
        assertTrue(RetentionModel.slotsNeeded(1, 3_600_000, 0.9) > 5 * eightWay);
    }

    @Test
    void idsRememberedIsTheLargestCountStillAtTheProbability() {
        long x = RetentionModel.idsRemembered(8, 812_500, 0.9);
        assertEquals(3.78e6, x, 0.01e6); // λ ≈ 4.656 per set
        assertTrue(RetentionModel.probabilityRemembered(8, 812_500, x) >= 0.9);
        assertTrue(RetentionModel.probabilityRemembered(8, 812_500, x + 1) < 0.9);
    }

    @Test
    void nothingIsForgottenBeforeAnyLaterId() {
        assertEquals(1.0, RetentionModel.probabilityRemembered(8, 1000, 0), 1e-12);
        assertEquals(1.0, RetentionModel.probabilityRemembered(1, 1000, 0), 1e-12);
    }

    @Test
    void rejectsProbabilitiesOutsideZeroToOne() {
        assertThrows(IllegalArgumentException.class, () -> RetentionModel.idsRemembered(8, 10, 1.0));
        assertThrows(IllegalArgumentException.class, () -> RetentionModel.idsRemembered(8, 10, 0));
    }
}
