package dev.dedup.benchmarks.jmh;

import dev.dedup.loadtest.workload.IdSpace;
import dev.dedup.loadtest.workload.Owners;
import dev.dedup.wire.Item;
import java.util.ArrayList;
import java.util.List;

/** The items the benchmarks use: the load generator's UUID-shaped ids and Kafka-style owners. */
final class Bodies {

    private Bodies() {}

    static List<Item> items(int count, int stream) {
        IdSpace ids = new IdSpace("jmh", 1, stream);
        List<Item> items = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            items.add(new Item(ids.id(i), Owners.of(Owners.ORIGINAL, i)));
        }
        return items;
    }
}
