package dev.dedup.examples.engines;

import java.util.Arrays;
import java.util.stream.Collectors;

/** One way of deduplicating the benchmark's stream: an engine, and its own deduplication or ours. */
public enum EngineSide {
    /** Flink's keyed state with a TTL of the window, on the heap state backend (full checkpoints). */
    FLINK_OWN_HEAP("flink-own-heap", true, false),
    /** The same keyed state on RocksDB with incremental checkpoints. */
    FLINK_OWN_ROCKSDB("flink-own-rocksdb", true, false),
    /** Flink with the library's operator, claiming at one agent on its embedded store. */
    FLINK_OURS("flink-ours", true, true),
    /** Kafka Streams' window store of the ids seen (RocksDB, changelogged), after a repartition by id. */
    STREAMS_OWN("streams-own", false, false),
    /** Kafka Streams with the library's processor, claiming at one agent on its embedded store. */
    STREAMS_OURS("streams-ours", false, true);

    public final String label;
    public final boolean flink;
    public final boolean ours;

    EngineSide(String label, boolean flink, boolean ours) {
        this.label = label;
        this.flink = flink;
        this.ours = ours;
    }

    /** The mode argument of {@link FlinkBenchJob} or of {@code StreamsBenchApp}. */
    String mode() {
        return switch (this) {
            case FLINK_OWN_HEAP -> "own-heap";
            case FLINK_OWN_ROCKSDB -> "own-rocksdb";
            case STREAMS_OWN -> "own";
            case FLINK_OURS, STREAMS_OURS -> "ours";
        };
    }

    static EngineSide of(String label) {
        for (EngineSide s : values()) {
            if (s.label.equals(label)) {
                return s;
            }
        }
        throw new IllegalArgumentException("--sides: " + label + " is none of "
                + Arrays.stream(values()).map(s -> s.label).collect(Collectors.joining(", ")));
    }
}
