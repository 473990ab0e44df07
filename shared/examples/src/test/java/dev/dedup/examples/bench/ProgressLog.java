package dev.dedup.examples.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;

/** The micro-batches {@link BenchQuery} recorded, read back from its progress file. */
final class ProgressLog {

    /**
     * One executed micro-batch: when it was reported, the driver's heap then, its duration, its input, the offsets it
     * read up to and the latest the source had when it was planned (summed over partitions), and its state.
     */
    record Batch(
            long at,
            long heapUsed,
            long batchId,
            long inputRows,
            long durationMs,
            long endOffsets,
            long latestOffsets,
            long stateRows,
            long stateMemoryBytes,
            long sstBytes) {}

    private static final ObjectMapper JSON = new ObjectMapper();

    /**
     * The executed micro-batches in the order reported. Spark also reports progress while idle, with no
     * {@code addBatch} duration: those are left out.
     */
    static List<Batch> read(Path file) throws IOException {
        List<Batch> out = new ArrayList<>();
        if (!Files.exists(file)) {
            return out;
        }
        for (String line : Files.readAllLines(file)) {
            if (line.isBlank()) {
                continue;
            }
            JsonNode n = JSON.readTree(line);
            JsonNode p = n.path("progress");
            JsonNode durations = p.path("durationMs");
            if (!durations.has("addBatch")) {
                continue;
            }
            JsonNode source = p.path("sources").path(0);
            JsonNode state = p.path("stateOperators").path(0);
            out.add(new Batch(
                    n.get("at").asLong(),
                    n.get("heap_used").asLong(),
                    p.path("batchId").asLong(),
                    p.path("numInputRows").asLong(),
                    durations.path("triggerExecution").asLong(),
                    offsets(source.path("endOffset")),
                    offsets(source.path("latestOffset")),
                    state.path("numRowsTotal").asLong(),
                    state.path("memoryUsedBytes").asLong(),
                    state.path("customMetrics").path("rocksdbSstFileSize").asLong()));
        }
        return out;
    }

    /** The sum over partitions of a Kafka source's offsets ({@code {"topic":{"0":12,"1":40}}}); -1 when absent. */
    static long offsets(JsonNode offsets) throws IOException {
        JsonNode n = offsets.isTextual() ? JSON.readTree(offsets.asText()) : offsets;
        if (n == null || !n.isObject()) {
            return -1;
        }
        long sum = 0;
        for (Iterator<JsonNode> topics = n.elements(); topics.hasNext(); ) {
            for (Iterator<JsonNode> partitions = topics.next().elements(); partitions.hasNext(); ) {
                sum += partitions.next().asLong();
            }
        }
        return sum;
    }

    /** The {@code q} quantile (0 to 1) of the batches' durations, nearest rank; 0 when there are none. */
    static long durationQuantile(List<Batch> batches, double q) {
        long[] d = batches.stream().mapToLong(Batch::durationMs).sorted().toArray();
        if (d.length == 0) {
            return 0;
        }
        int rank = (int) Math.ceil(q * d.length);
        return d[Math.max(0, Math.min(d.length - 1, rank - 1))];
    }

    /** Whether the query has reported its start. */
    static boolean started(Path file) throws IOException {
        return Files.exists(file) && Files.readString(file).contains("\"started\":true");
    }

    private ProgressLog() {}
}
