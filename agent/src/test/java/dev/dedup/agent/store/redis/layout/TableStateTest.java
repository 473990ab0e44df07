package dev.dedup.agent.store.redis.layout;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import org.junit.jupiter.api.Test;

/** When a table of base 2^10 is due a split or a merge, and which buckets one call of {@code table.lua} pairs. */
class TableStateTest {

    private static final int BASE = 10;

    @Test
    void aTableSplitsPast48RecordsABucket_mergesBelow16_andNeverBelowItsBase() {
        assertNull(new FingerprintTable.State(0, 0, 48 * 1024).due(BASE), "48 a bucket: as planned");
        assertEquals(FingerprintTable.Resize.SPLIT, new FingerprintTable.State(0, 0, 48 * 1024 + 1).due(BASE));
        assertNull(new FingerprintTable.State(0, 0, 0).due(BASE), "empty at its base: nothing to merge");
        assertNull(new FingerprintTable.State(1, 0, 16 * 2048).due(BASE));
        assertEquals(FingerprintTable.Resize.MERGE, new FingerprintTable.State(1, 0, 16 * 2048 - 1).due(BASE));
        assertEquals(FingerprintTable.Resize.MERGE, new FingerprintTable.State(0, 1, 0).due(BASE), "one bucket split");
        assertNull(
                new FingerprintTable.State(FingerprintTable.Records.ROUTE_BITS, 0, Long.MAX_VALUE / 2).due(BASE),
                "split as far as the records' route bits go");
    }

    @Test
    void aSplitPairsTheBucketsFromThePointer_asManyAsTheClaimsWant_upTo64_andNotPastItsLevel() {
        assertArrayEquals(
                new long[] {0, 1024},
                new FingerprintTable.State(0, 0, 48 * 1024 + 1).pairs(split(), BASE, TableResizing.PAIRS_PER_CALL));
        assertArrayEquals(
                new long[] {5, 1029, 6, 1030, 7, 1031},
                new FingerprintTable.State(0, 5, 48 * 1032).pairs(split(), BASE, TableResizing.PAIRS_PER_CALL),
                "1,029 buckets for the claims of 1,032");
        long[] most = new FingerprintTable.State(2, 100, 1L << 30).pairs(split(), BASE, TableResizing.PAIRS_PER_CALL);
        assertEquals(2 * 64, most.length);
        assertEquals(100, most[0]);
        assertEquals(100 + 4096, most[1], "the image is a level's size above");
        assertEquals(163 + 4096, most[127]);
        assertArrayEquals(
                new long[] {1022, 2046, 1023, 2047},
                new FingerprintTable.State(0, 1022, 1L << 30).pairs(split(), BASE, TableResizing.PAIRS_PER_CALL),
                "the level's last splits; the next call starts the next level");
    }

    @Test
    void aMergeUndoesTheLastSplitsFirst_steppingBackALevelWhenThePointerIsAt0() {
        assertArrayEquals(
                new long[] {2, 1026, 1, 1025, 0, 1024},
                new FingerprintTable.State(0, 3, 0).pairs(merge(), BASE, TableResizing.PAIRS_PER_CALL),
                "back to the base and no further");
        long[] back = new FingerprintTable.State(1, 0, 0).pairs(merge(), BASE, TableResizing.PAIRS_PER_CALL);
        assertEquals(2 * 64, back.length);
        assertArrayEquals(new long[] {1023, 2047, 1022, 2046}, java.util.Arrays.copyOf(back, 4));
        assertArrayEquals(
                new long[] {9, 1033},
                new FingerprintTable.State(0, 10, 32 * 1033).pairs(merge(), BASE, TableResizing.PAIRS_PER_CALL),
                "one pair when the claims fill all but one bucket at 32 a bucket");
        assertArrayEquals(
                new long[0], new FingerprintTable.State(0, 0, 0).pairs(merge(), BASE, TableResizing.PAIRS_PER_CALL));
    }

    private static FingerprintTable.Resize split() {
        return FingerprintTable.Resize.SPLIT;
    }

    private static FingerprintTable.Resize merge() {
        return FingerprintTable.Resize.MERGE;
    }
}
