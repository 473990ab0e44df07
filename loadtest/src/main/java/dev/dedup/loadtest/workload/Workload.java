package dev.dedup.loadtest.workload;

import dev.dedup.wire.Item;
import java.util.ArrayList;
import java.util.List;

/**
 * The requests of one scenario pass over ids {@code [0, ids)}, all encoded up front so that the generator's
 * own encoding (tens of bytes per id, a few hundred nanoseconds) is not counted against the agent: the
 * timed part only sends bytes that already exist and checks the answers.
 */
public record Workload(String name, Format format, int ids, List<PreparedBatch> batches) {

    public Workload {
        batches = List.copyOf(batches);
    }

    /**
     * Encodes {@code scenario} over ids {@code [0, ledger.size())} of {@code idSpace}, in batches of
     * {@code batchSize}, asking the ledger what each copy should be answered.
     */
    public static Workload prepare(String name, Scenario scenario, IdSpace idSpace, Ledger ledger, String namespace,
                                   Format format, int batchSize) {
        int ids = ledger.size();
        List<PreparedBatch> batches = new ArrayList<>((ids + batchSize - 1) / batchSize);
        List<Item> items = new ArrayList<>(Math.min(batchSize, ids));
        for (int start = 0; start < ids; start += batchSize) {
            int end = Math.min(ids, start + batchSize);
            byte[] expected = new byte[end - start];
            items.clear();
            for (int i = start; i < end; i++) {
                items.add(new Item(idSpace.id(i), Owners.of(scenario.copy(), i)));
                expected[i - start] = ledger.send(i, scenario.copy()).code();
            }
            batches.add(new PreparedBatch(format.encode(namespace, items), expected));
        }
        return new Workload(name, format, ids, batches);
    }

    public long bodyBytes() {
        long sum = 0;
        for (PreparedBatch b : batches) {
            sum += b.body().length;
        }
        return sum;
    }
}
