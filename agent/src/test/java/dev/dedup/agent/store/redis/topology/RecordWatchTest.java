package dev.dedup.agent.store.redis.topology;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dedup.agent.store.redis.topology.RecordWatch.Seen;
import java.util.List;
import org.junit.jupiter.api.Test;

/** What the watch makes of a shard's record read anew, without Redis. */
class RecordWatchTest {

    private static String record(String deployment, long epoch, Object shard, int of) {
        return "dedup-topology v1 deployment=" + deployment + " epoch=" + epoch + " shard=" + shard + " of=" + of;
    }

    private static final String MINE = record("d1", 5, 1, 3);
    private static final String AFTER = record("d1", 6, 1, 4);

    @Test
    void theSameRecordAsLastRead_isUnchanged_whateverItIs() {
        assertEquals(Seen.UNCHANGED, RecordWatch.decide(MINE, MINE, MINE, MINE, true));
        assertEquals(Seen.UNCHANGED, RecordWatch.decide(null, null, MINE, MINE, true));
        assertEquals(Seen.UNCHANGED, RecordWatch.decide(AFTER, AFTER, MINE, AFTER, false));
    }

    @Test
    void theExpectedRecordAfterAnotherOrNone_isBack() {
        assertEquals(Seen.BACK, RecordWatch.decide(null, MINE, MINE, MINE, true));
        assertEquals(Seen.BACK, RecordWatch.decide(record("d2", 1, 0, 1), MINE, MINE, MINE, true));
    }

    @Test
    void noRecord_orAnotherDeployments_isLost() {
        assertEquals(Seen.LOST, RecordWatch.decide(MINE, null, MINE, MINE, true));
        assertEquals(Seen.LOST, RecordWatch.decide(MINE, record("d2", 9, 1, 3), MINE, MINE, true));
        assertEquals(Seen.LOST, RecordWatch.decide(MINE, "not a record", MINE, MINE, true));
        assertEquals(Seen.LOST, RecordWatch.decide(MINE, record("d1", 4, 1, 3), MINE, MINE, true), "an older epoch");
    }

    @Test
    void aLaterEpochOfThisDeployment_isMovedOn() {
        assertEquals(Seen.MOVED_ON, RecordWatch.decide(MINE, record("d1", 6, 1, 4), MINE, MINE, true));
        assertEquals(Seen.MOVED_ON, RecordWatch.decide(MINE, record("d1", 6, "retired", 2), MINE, MINE, true));
    }

    @Test
    void duringAChange_theRecordAfterTheCutover_isAdvanced_untilThisAgentCutOver() {
        assertEquals(Seen.ADVANCED, RecordWatch.decide(MINE, AFTER, MINE, AFTER, false), "another agent cut over");
        assertEquals(Seen.BACK, RecordWatch.decide(null, AFTER, AFTER, AFTER, true), "this one did too");
    }

    @Test
    void movedOn_comparesTheDeploymentAndTheEpoch() {
        assertTrue(RecordWatch.movedOn(record("d1", 6, 0, 4), MINE));
        assertFalse(RecordWatch.movedOn(record("d1", 5, 0, 4), MINE));
        assertFalse(RecordWatch.movedOn(record("d2", 6, 0, 4), MINE));
        assertFalse(RecordWatch.movedOn(null, MINE));
    }

    @Test
    void theProblem_namesEveryShardNotInTheTopology_orIsNull() {
        assertNull(RecordWatch.problem(List.of()));
        String problem = RecordWatch.problem(
                List.of(RecordWatch.wrong("redis://a:6379", null), RecordWatch.wrong("redis://b:6379", AFTER)));
        assertTrue(problem.contains("redis://a:6379 has no topology record"), problem);
        assertTrue(problem.contains("redis://b:6379 holds \"" + AFTER + "\""), problem);
    }

    @Test
    void everyLogLine_namesTheShard() {
        for (Seen seen : Seen.values()) {
            assertTrue(RecordWatch.message(seen, "redis://a:6379", AFTER).contains("redis://a:6379"), seen.name());
        }
        assertTrue(RecordWatch.message(Seen.LOST, "s", null).contains("has lost its topology record"));
    }
}
