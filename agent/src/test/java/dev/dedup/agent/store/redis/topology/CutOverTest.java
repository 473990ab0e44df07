package dev.dedup.agent.store.redis.topology;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dedup.agent.store.FailureKind;
import dev.dedup.agent.store.StoreUnavailableException;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletionException;
import org.junit.jupiter.api.Test;

/** When the cut-over of a declared change is made and whether it was, and what the guard's refusal is. */
class CutOverTest {

    private static final long CUTOVER = 1_767_225_600L;

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.US_ASCII);
    }

    @Test
    void theCutover_isDueFromItsSecond_untilMade() {
        assertFalse(CutOver.due(false, CUTOVER * 1000 - 1, CUTOVER));
        assertTrue(CutOver.due(false, CUTOVER * 1000, CUTOVER));
        assertTrue(CutOver.due(false, CUTOVER * 1000 + 86_400_000L, CUTOVER));
        assertFalse(CutOver.due(true, CUTOVER * 1000, CUTOVER), "made already");
    }

    @Test
    void withoutAChange_theCutoverIsNeverDue() {
        assertFalse(CutOver.due(true, Long.MAX_VALUE, Long.MIN_VALUE));
    }

    @Test
    void aFailedCutover_isTriedAgainByClaimsOnlyASecondLater() {
        assertTrue(CutOver.tryNow(false, 0, 5), "never failed");
        assertFalse(CutOver.tryNow(true, 1_000, 1_000 + CutOver.RETRY_NANOS - 1));
        assertTrue(CutOver.tryNow(true, 1_000, 1_000 + CutOver.RETRY_NANOS));
    }

    @Test
    void aShardHoldingTheRecordAfter_isAdvanced_anyOtherSaysWhatItHolds() {
        byte[] before = bytes("dedup-topology v1 deployment=d1 epoch=5 shard=1 of=3");
        byte[] after = bytes("dedup-topology v1 deployment=d1 epoch=6 shard=1 of=4");
        assertNull(CutOver.notAdvanced("b", "dedup-topology v1 deployment=d1 epoch=6 shard=1 of=4", before, after));
        assertEquals(
                "redis shard b holds no topology record at the cut-over, not"
                        + " \"dedup-topology v1 deployment=d1 epoch=5 shard=1 of=3\"",
                CutOver.notAdvanced("b", null, before, after));
        assertTrue(CutOver.notAdvanced("b", "dedup-topology v1 deployment=d2 epoch=1 shard=0 of=1", before, after)
                .contains("holds \"dedup-topology v1 deployment=d2"));
    }

    @Test
    void theGuardsRefusal_isKnownByItsKind_notItsText() {
        StoreUnavailableException refused =
                new StoreUnavailableException(FailureKind.TOPOLOGY, "redis shard a answered: anything", null);
        assertTrue(GuardedPort.refusedByGuard(refused));
        assertTrue(GuardedPort.refusedByGuard(new CompletionException(refused)));
        assertFalse(GuardedPort.refusedByGuard(
                new StoreUnavailableException(FailureKind.TIMEOUT, "DEDUPTOPOLOGY in the text", null)));
        assertFalse(GuardedPort.refusedByGuard(new IllegalStateException("DEDUPTOPOLOGY")));
    }
}
