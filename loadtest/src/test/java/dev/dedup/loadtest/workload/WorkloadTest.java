package dev.dedup.loadtest.workload;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.dedup.wire.BinaryBatchDecoder;
import dev.dedup.wire.Item;
import java.util.List;
import org.junit.jupiter.api.Test;

class WorkloadTest {

    @Test
    void splitsIdsIntoBatches_lastOneShorter_withExpectedVerdictsFromTheLedger() {
        IdSpace ids = new IdSpace("run", 1, IdSpace.MEASURED);
        Ledger ledger = new Ledger(25);
        Workload cold = Workload.prepare("cold", Scenario.COLD, ids, ledger, "ns", Format.BINARY, 10);
        assertEquals(List.of(10, 10, 5), cold.batches().stream().map(PreparedBatch::items).toList());
        assertArrayEquals(new byte[5], cold.batches().get(2).expected());

        Workload dup = Workload.prepare("duplicate", Scenario.DUPLICATE, ids, ledger, "ns", Format.BINARY, 10);
        byte[] twos = new byte[10];
        java.util.Arrays.fill(twos, (byte) 2);
        assertArrayEquals(twos, dup.batches().get(0).expected());
    }

    @Test
    void bodiesHoldTheScenariosIdsAndOwners_inTheChosenFormat() {
        IdSpace ids = new IdSpace("run", 1, IdSpace.MEASURED);
        List<Item> items = List.of(new Item(ids.id(0), Owners.of(Owners.SECOND_WRITE, 0)),
                new Item(ids.id(1), Owners.of(Owners.SECOND_WRITE, 1)));
        for (Format format : Format.values()) {
            Workload w = Workload.prepare("dup", Scenario.DUPLICATE, ids, new Ledger(2), "loadtest", format, 2);
            assertArrayEquals(format.encode("loadtest", items), w.batches().get(0).body(), format.cliName());
        }
        assertEquals(2, BinaryBatchDecoder.decode(
                Workload.prepare("c", Scenario.COLD, ids, new Ledger(2), "x", Format.BINARY, 5).batches().get(0).body(),
                10).size());
    }
}
