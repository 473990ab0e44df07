package dev.dedup.loadtest.workload;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dedup.wire.Verdict;
import org.junit.jupiter.api.Test;

class VerdictTallyTest {

    @Test
    void allAsExpected_isSafeAndCountsVerdicts() {
        VerdictTally tally = new VerdictTally();
        tally.record(Verdict.NEW, Verdict.NEW);
        tally.record(Verdict.RETRY, Verdict.RETRY);
        tally.record(Verdict.DUPLICATE, Verdict.DUPLICATE);
        tally.record(Verdict.DUPLICATE, Verdict.DUPLICATE);
        assertTrue(tally.safe());
        assertEquals(1, tally.count(Verdict.NEW));
        assertEquals(1, tally.count(Verdict.RETRY));
        assertEquals(2, tally.count(Verdict.DUPLICATE));
        assertEquals(4, tally.total());
        assertEquals(0, tally.falseDrops() + tally.missedDuplicates() + tally.unexpected());
    }

    @Test
    void firstCopyAnsweredDuplicate_isFalseDrop() {
        VerdictTally tally = new VerdictTally();
        tally.record(Verdict.NEW, Verdict.DUPLICATE);
        assertEquals(1, tally.falseDrops());
        assertEquals(0, tally.missedDuplicates());
        assertEquals(0, tally.unexpected());
        assertFalse(tally.safe());
    }

    @Test
    void otherOwnersCopyAnsweredNew_isMissedDuplicate() {
        VerdictTally tally = new VerdictTally();
        tally.record(Verdict.DUPLICATE, Verdict.NEW);
        assertEquals(1, tally.missedDuplicates());
        assertEquals(0, tally.falseDrops());
        assertFalse(tally.safe());
    }

    @Test
    void otherMismatches_areUnexpectedButSafe() {
        VerdictTally tally = new VerdictTally();
        tally.record(Verdict.RETRY, Verdict.NEW); // the store forgot the claim
        tally.record(Verdict.NEW, Verdict.RETRY); // the id was claimed before this run
        tally.record(Verdict.RETRY, Verdict.DUPLICATE);
        tally.record(Verdict.DUPLICATE, Verdict.RETRY);
        assertEquals(4, tally.unexpected());
        assertTrue(tally.safe());
    }

    @Test
    void batchOfCodes_classifiedItemByItem_andTalliesMerge() {
        VerdictTally a = new VerdictTally();
        a.record(new byte[] {0, 0, 2}, new byte[] {0, 2, 0});
        VerdictTally b = new VerdictTally();
        b.record(new byte[] {1}, new byte[] {1});
        a.add(b);
        assertEquals(4, a.total());
        assertEquals(1, a.falseDrops());
        assertEquals(1, a.missedDuplicates());
        assertEquals(1, a.count(Verdict.RETRY));
    }

    @Test
    void resentBatch_retryForAnExpectedNew_isTheFailedAttemptsClaim_aDuplicateStillAFalseDrop() {
        VerdictTally tally = new VerdictTally();
        tally.recordResent(new byte[] {0, 0, 1, 2}, new byte[] {1, 0, 1, 2});
        assertEquals(0, tally.unexpected());
        assertTrue(tally.safe());
        assertEquals(2, tally.count(Verdict.NEW));
        assertEquals(1, tally.count(Verdict.RETRY));
        tally.recordResent(new byte[] {0}, new byte[] {2});
        assertEquals(1, tally.falseDrops());
    }

    @Test
    void batchWithWrongNumberOfVerdicts_isRejected() {
        assertThrows(IllegalArgumentException.class, () -> new VerdictTally().record(new byte[2], new byte[1]));
    }
}
