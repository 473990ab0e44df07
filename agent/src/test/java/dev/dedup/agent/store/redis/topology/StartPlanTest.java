package dev.dedup.agent.store.redis.topology;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dedup.agent.config.RedisOptions;
import dev.dedup.agent.config.ShardTransition;
import dev.dedup.agent.store.IncompatibleDeploymentException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * What a start does with the records it read, for the shard lists an agent may be given: stamp, agree, adopt,
 * join a declared change before, during or after its cut-over, or refuse saying what differs.
 */
class StartPlanTest {

    private static final String A = "redis://a:6379";
    private static final String B = "redis://b:6379";
    private static final String C = "redis://c:6379";
    private static final String D = "redis://d:6379";
    private static final Instant CUTOVER = Instant.ofEpochSecond(1_767_225_600L);

    private static ShardLists single(int shards) {
        return ShardLists.single(shards);
    }

    /** {@code --redis current --redis-previous previous}: port indexes are {@code current}, then the rest. */
    private static ShardLists change(List<String> previous, List<String> current) {
        return ShardLists.of(RedisOptions.builder(current)
                .transition(new ShardTransition(previous, CUTOVER))
                .build());
    }

    private static String record(String deployment, long epoch, Object shard, int of) {
        return "dedup-topology v1 deployment=" + deployment + " epoch=" + epoch + " shard=" + shard + " of=" + of;
    }

    /** What a start read: shard {@code s} named {@code shard-s}, its record {@code records[s]}. */
    private static List<StartPlan.Read> read(String... records) {
        List<StartPlan.Read> read = new ArrayList<>();
        for (int s = 0; s < records.length; s++) {
            read.add(new StartPlan.Read("shard-" + s, "dd:topology", records[s]));
        }
        return read;
    }

    private static StartPlan decide(ShardLists routing, boolean adopt, String... records) {
        return StartPlan.decide(read(records), routing, adopt, () -> "new-id");
    }

    private static String text(byte[] record) {
        return record == null ? null : TopologyRecord.text(record);
    }

    private static List<String> stamps(StartPlan plan, int shards) {
        List<String> out = new ArrayList<>();
        for (int s = 0; s < shards; s++) {
            out.add(text(plan.stamp(s)));
        }
        return out;
    }

    private static String refusal(ShardLists routing, String... records) {
        return assertThrows(IncompatibleDeploymentException.class, () -> decide(routing, false, records))
                .getMessage();
    }

    @Test
    void noRecordAnywhere_stampsEveryShardInListOrder_underANewDeployment() {
        StartPlan plan = decide(single(3), false, null, null, null);
        assertTrue(plan.newDeployment());
        assertEquals("new-id", plan.deployment());
        assertEquals(
                List.of(record("new-id", 1, 0, 3), record("new-id", 1, 1, 3), record("new-id", 1, 2, 3)),
                stamps(plan, 3));
        assertEquals(List.of(), plan.adopted(), "a new deployment adopts nothing");
        for (int s = 0; s < 3; s++) {
            assertEquals(text(plan.before(s)), text(plan.after(s)), "no change declared: one record a shard");
        }
    }

    @Test
    void recordsWhereTheListPutsThem_areAgreedWith_inTheirEpoch_andNothingIsStamped() {
        StartPlan plan = decide(single(2), false, record("d1", 3, 0, 2), record("d1", 3, 1, 2));
        assertFalse(plan.newDeployment());
        assertEquals("d1", plan.deployment());
        assertEquals(Arrays.asList(null, null), stamps(plan, 2));
        assertEquals(record("d1", 3, 1, 2), text(plan.before(1)));
        assertEquals(record("d1", 3, 1, 2), text(plan.after(1)));
        assertFalse(plan.advancing());
    }

    @Test
    void aShardOfAnotherDeployment_isRefused() {
        String message = refusal(single(2), record("d1", 1, 0, 2), record("d2", 1, 1, 2));
        assertSays(
                message,
                "shard-1 belongs to deployment d2, the shards before it to d1",
                "mixes shards of two deployments");
    }

    @Test
    void aKeyHoldingSomethingElse_isRefused_askingAboutThePrefix() {
        String message = refusal(single(2), record("d1", 1, 0, 2), "hello");
        assertSays(message, "shard-1 holds \"hello\" under dd:topology", "--redis-prefix");
        assertTrue(
                refusal(single(1), "dedup-topology v1 deployment=d1 epoch=one shard=0 of=1")
                        .contains("not a topology record"),
                "a record whose epoch is not a number is not one");
    }

    @Test
    void aReorderedList_isRefused_sayingWhereTheShardWas() {
        String message = refusal(single(3), record("d1", 1, 1, 3), record("d1", 1, 0, 3), record("d1", 1, 2, 3));
        assertSays(
                message,
                "shard-0 is shard 1 of 3 in topology epoch 1",
                "--redis lists it as shard 0 of 3",
                "without a declared transition");
    }

    @Test
    void aShardAppendedWithoutDeclaringIt_isRefused_beforeItCouldBeAdopted() {
        String message = assertThrows(
                        IncompatibleDeploymentException.class,
                        () -> decide(
                                single(4),
                                true,
                                record("d1", 1, 0, 3),
                                record("d1", 1, 1, 3),
                                record("d1", 1, 2, 3),
                                null))
                .getMessage();
        assertSays(message, "shard 0 of 3", "shard 0 of 4");
    }

    @Test
    void aRetiredShardListedAgain_isRefused() {
        String message = refusal(single(2), record("d1", 2, 0, 2), record("d1", 2, "retired", 2));
        assertTrue(message.contains("shard-1 is retired in topology epoch 2"), message);
    }

    @Test
    void shardsInTwoEpochs_withoutADeclaredChange_areRefused_asAnUnfinishedCutover() {
        String message = refusal(single(2), record("d1", 1, 0, 2), record("d1", 2, 1, 2));
        assertSays(message, "shard-1 is in topology epoch 2, shard-0 in epoch 1", "did not finish its cut-over");
    }

    @Test
    void aShardWithoutRecordAmongShardsWithOne_mayBeAnotherAgentStamping_unlessAdopted() {
        StartRace race = assertThrows(
                StartRace.class, () -> decide(single(3), false, record("d1", 4, 0, 3), null, record("d1", 4, 2, 3)));
        assertTrue(
                race.refusal.getMessage().contains("[shard-1] hold no topology record while the other shards do")
                        && race.refusal.getMessage().contains("--redis-adopt-empty-shards"),
                race.refusal.getMessage());

        StartPlan adopted = decide(single(3), true, record("d1", 4, 0, 3), null, record("d1", 4, 2, 3));
        assertEquals(List.of("shard-1"), adopted.adopted());
        assertFalse(adopted.newDeployment());
        assertEquals(Arrays.asList(null, record("d1", 4, 1, 3), null), stamps(adopted, 3), "in the shards' epoch");
    }

    @Test
    void aDeclaredAddition_beforeItsCutover_stampsTheNewShardInTheNextEpoch() {
        ShardLists routing = change(List.of(A, B, C), List.of(A, B, C, D));
        StartPlan plan =
                decide(routing, false, record("d1", 5, 0, 3), record("d1", 5, 1, 3), record("d1", 5, 2, 3), null);
        assertEquals(Arrays.asList(null, null, null, record("d1", 6, 3, 4)), stamps(plan, 4));
        assertEquals(List.of(), plan.adopted(), "a shard the change adds is stamped, not adopted");
        assertEquals(record("d1", 5, 2, 3), text(plan.before(2)));
        assertEquals(record("d1", 6, 2, 4), text(plan.after(2)));
        assertEquals(record("d1", 6, 3, 4), text(plan.before(3)), "the new shard has no place before the change");
        assertFalse(plan.cutOver());
        assertFalse(plan.advancing());
    }

    @Test
    void aDeclaredAddition_thatAnotherAgentBeganToCutOver_isFinishedByThisOne() {
        ShardLists routing = change(List.of(A, B, C), List.of(A, B, C, D));
        StartPlan plan = decide(
                routing,
                false,
                record("d1", 6, 0, 4),
                record("d1", 5, 1, 3),
                record("d1", 5, 2, 3),
                record("d1", 6, 3, 4));
        assertTrue(plan.advancing());
        assertFalse(plan.cutOver());
        assertEquals(record("d1", 5, 0, 3), text(plan.before(0)), "epoch 5 read from a shard past the cut-over");
    }

    @Test
    void aDeclaredAddition_pastItsCutoverEverywhere_startsCutOver_andStampsANewShardAsAfter() {
        ShardLists routing = change(List.of(A, B, C), List.of(A, B, C, D));
        StartPlan plan =
                decide(routing, false, record("d1", 6, 0, 4), record("d1", 6, 1, 4), record("d1", 6, 2, 4), null);
        assertTrue(plan.cutOver());
        assertFalse(plan.advancing());
        assertEquals(Arrays.asList(null, null, null, record("d1", 6, 3, 4)), stamps(plan, 4));

        StartPlan adopting =
                decide(routing, true, record("d1", 6, 0, 4), null, record("d1", 6, 2, 4), record("d1", 6, 3, 4));
        assertEquals(
                Arrays.asList(null, record("d1", 6, 1, 4), null, null),
                stamps(adopting, 4),
                "a shard adopted past the cut-over is stamped with its place after it");
    }

    @Test
    void aDeclaredRemoval_retiresTheShardLeftOut_atItsPortIndexAfterTheCurrentList() {
        // --redis a,c --redis-previous a,b,c: ports a=0, c=1, then b=2.
        ShardLists routing = change(List.of(A, B, C), List.of(A, C));
        StartPlan plan = decide(routing, false, record("d1", 1, 0, 3), record("d1", 1, 2, 3), record("d1", 1, 1, 3));
        assertEquals(Arrays.asList(null, null, null), stamps(plan, 3));
        assertEquals(record("d1", 2, 0, 2), text(plan.after(0)));
        assertEquals(record("d1", 2, 1, 2), text(plan.after(1)));
        assertEquals(record("d1", 2, "retired", 2), text(plan.after(2)));
        assertEquals(record("d1", 1, 1, 3), text(plan.before(2)));
    }

    @Test
    void aDeclaredChangeFromAnotherListThanTheShardsWereStartedWith_isRefused() {
        // The shards were started as a,b,c; the change names b,a,c as the previous list.
        ShardLists routing = change(List.of(B, A, C), List.of(A, B, C, D));
        String message = refusal(routing, record("d1", 1, 0, 3), record("d1", 1, 1, 3), record("d1", 1, 2, 3), null);
        assertSays(
                message,
                "neither its place in --redis-previous",
                "declare the change from the shard list the shards were last started with");
    }

    @Test
    void aDeclaredChangeOnShardsWithoutRecords_stampsThePreviousListInEpoch1_andTheNewShardIn2() {
        ShardLists routing = change(List.of(A, B), List.of(A, B, C));
        StartPlan plan = decide(routing, false, null, null, null);
        assertTrue(plan.newDeployment());
        assertEquals(
                List.of(record("new-id", 1, 0, 2), record("new-id", 1, 1, 2), record("new-id", 2, 2, 3)),
                stamps(plan, 3));
        assertFalse(plan.cutOver());
    }

    @Test
    void aDeclaredChange_whoseShardOfThePreviousListLostItsRecord_mayBeARace() {
        ShardLists routing = change(List.of(A, B), List.of(A, B, C));
        StartRace race = assertThrows(StartRace.class, () -> decide(routing, false, record("d1", 1, 0, 2), null, null));
        assertTrue(race.refusal.getMessage().contains("[shard-1] hold no topology record"), race.getMessage());
    }

    @Test
    void aRecordReadsBackAsItsFields_andOnlyARecordDoes() {
        String written = TopologyRecord.text(TopologyRecord.of("d-1", 12, 3, 4));
        assertEquals(record("d-1", 12, 3, 4), written);
        assertEquals(
                java.util.Map.of("deployment", "d-1", "epoch", "12", "shard", "3", "of", "4"),
                TopologyRecord.parse(written));
        assertEquals(
                "retired", TopologyRecord.parse(record("d", 2, "retired", 3)).get("shard"));
        assertNull(TopologyRecord.parse("dedup-topology v2 deployment=d epoch=1 shard=0 of=1"), "another version");
        assertNull(TopologyRecord.parse("dedup-topology v1 deployment=d epoch=1 shard=0"), "a field missing");
        assertNull(TopologyRecord.parse("dedup-topology v1 deployment=d epoch=1 shard=0 of=retired"), "of retired");
        assertNull(
                TopologyRecord.parse("dedup-topology v1 deployment=d epoch=1234567890 shard=0 of=1"),
                "an epoch past nine digits");
    }

    /** Fails unless {@code message} holds every one of {@code parts}. */
    private static void assertSays(String message, String... parts) {
        assertTrue(Arrays.stream(parts).allMatch(message::contains), message);
    }
}
