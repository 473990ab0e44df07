package dev.dedup.loadtest.workload;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.dedup.codec.BinaryBatchDecoder;
import dev.dedup.wire.Item;
import java.util.List;
import org.junit.jupiter.api.Test;

class WorkloadTest {

    @Test
    void splitsIdsIntoBatches_lastOneShorter_withExpectedVerdictsFromTheLedger() {
        IdSpace ids = new IdSpace("run", 1, IdSpace.MEASURED);
        Ledger ledger = new Ledger(25);
        Workload cold = Workload.prepare("cold", Scenario.COLD.uniformPlan(25), ids, ledger, "ns", Format.BINARY, 10);
        assertEquals(
                List.of(10, 10, 5),
                cold.batches().stream().map(PreparedBatch::items).toList());
        assertArrayEquals(new byte[5], cold.batches().get(2).expected());

        Workload dup =
                Workload.prepare("duplicate", Scenario.DUPLICATE.uniformPlan(25), ids, ledger, "ns", Format.BINARY, 10);
        byte[] twos = new byte[10];
        java.util.Arrays.fill(twos, (byte) 2);
        assertArrayEquals(twos, dup.batches().get(0).expected());
        assertEquals(
                List.of(-1, -1, -1),
                dup.batches().stream().map(PreparedBatch::dependsOn).toList(),
                "a uniform pass repeats no id within itself");
    }

    @Test
    void aBatchRepeatingIdsOfEarlierBatches_dependsOnTheLastOfThem() {
        IdSpace ids = new IdSpace("run", 1, IdSpace.MIXED);
        // Message 0 in batch 0, its second write in batch 1; message 3 in batch 1, replayed in batch 2.
        SendPlan plan = new SendPlan(
                new int[] {0, 1, 2, 3, 4, 0, 3},
                new byte[] {0, 0, 0, 0, 0, (byte) Owners.SECOND_WRITE, (byte) Owners.ORIGINAL});
        Workload w = Workload.prepare("mixed", plan, ids, new Ledger(5), "ns", Format.BINARY, 3);
        assertEquals(
                List.of(-1, 0, 1),
                w.batches().stream().map(PreparedBatch::dependsOn).toList());
        assertArrayEquals(new byte[] {0, 0, 0}, w.batches().get(0).expected());
        assertArrayEquals(new byte[] {0, 0, 2}, w.batches().get(1).expected(), "the second write of message 0");
        assertArrayEquals(new byte[] {1}, w.batches().get(2).expected(), "message 3 replayed");
    }

    @Test
    void bodiesHoldTheScenariosIdsAndOwners_inTheChosenFormat() {
        IdSpace ids = new IdSpace("run", 1, IdSpace.MEASURED);
        List<Item> items = List.of(
                new Item(ids.id(0), Owners.of(Owners.SECOND_WRITE, 0)),
                new Item(ids.id(1), Owners.of(Owners.SECOND_WRITE, 1)));
        for (Format format : Format.values()) {
            Workload w = Workload.prepare(
                    "dup", Scenario.DUPLICATE.uniformPlan(2), ids, new Ledger(2), "loadtest", format, 2);
            List<Message> messages =
                    items.stream().map(i -> new Message(i.id(), i.owner(), 0)).toList();
            assertArrayEquals(
                    format.encode("loadtest", messages), w.batches().get(0).body(), format.cliName());
        }
        assertEquals(
                2,
                BinaryBatchDecoder.decode(
                                Workload.prepare(
                                                "c",
                                                Scenario.COLD.uniformPlan(2),
                                                ids,
                                                new Ledger(2),
                                                "x",
                                                Format.BINARY,
                                                5)
                                        .batches()
                                        .get(0)
                                        .body(),
                                10)
                        .size());
    }
}
