package dev.dedup.examples.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code loadtest/bench-pipeline.sh}'s Java main at a tiny scale (100 ids/s for 15 s, a 10 s window), so that the
 * benchmark keeps working: both sides run, catch up with their stream and write their results; ours leaves the sink
 * exact, and so does Spark's own dedup, whose watermark covers the copies' longest delay.
 */
class PipelineBenchIT {

    @TempDir
    static Path work;

    @Test
    void bothSidesCatchUpAndCountEveryMessageOnce() throws Exception {
        Path out = Files.createDirectories(Path.of("target", "pipeline-bench-it"));
        try (Stream<Path> earlier = Files.list(out)) {
            for (Path p : earlier.toList()) {
                Files.delete(p);
            }
        }
        BenchOptions options = new BenchOptions(
                100,
                Duration.ofSeconds(10),
                Duration.ofSeconds(15),
                Duration.ofSeconds(2),
                4,
                List.of(BenchOptions.Side.OURS_EMBEDDED, BenchOptions.Side.SPARK),
                Duration.ZERO,
                Duration.ZERO,
                Duration.ZERO,
                out,
                work,
                42);

        List<SideResult> results = PipelineBench.run(options);

        assertEquals(2, results.size());
        for (SideResult r : results) {
            assertTrue(r.caughtUp(), r.side() + " read to the topic's end: " + r);
            assertTrue(r.exact(), r.side() + " counted every message once: " + r);
            assertEquals(1_500, r.unique(), r.side() + ": the ledger");
            assertTrue(r.batches() > 0 && r.driverRssMaxBytes() > 0, r.side() + " was measured: " + r);
        }
        assertTrue(results.get(0).stateRows() >= 1_500, "the agent holds every id: " + results.get(0));
        assertEquals(1_500, results.get(1).stateRows(), "Spark's state holds every id: " + results.get(1));
        try (Stream<Path> files = Files.list(out)) {
            assertEquals(
                    2,
                    files.filter(p -> p.toString().matches(".*\\.(json|tsv)$")).count(),
                    "the result files");
        }
    }
}
