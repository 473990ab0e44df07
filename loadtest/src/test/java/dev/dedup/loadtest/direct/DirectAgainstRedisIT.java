package dev.dedup.loadtest.direct;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dedup.agent.testing.RedisServer;
import dev.dedup.loadtest.CommandLine;
import dev.dedup.loadtest.LoadRun;
import dev.dedup.loadtest.report.ScenarioResult;
import dev.dedup.wire.Verdict;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code --direct} against real redis-server shards: Tapjoy's script gives the verdicts the ledger expects. */
class DirectAgainstRedisIT {

    @TempDir
    Path dir;

    @Test
    void allScenarios_onThreeShards_everyVerdictAsExpected_andBucketsOfAboutAHundred() throws Exception {
        try (RedisServer a = RedisServer.start(dir.resolve("a"));
                RedisServer b = RedisServer.start(dir.resolve("b"));
                RedisServer c = RedisServer.start(dir.resolve("c"))) {
            String uris = a.uri() + "," + b.uri() + "," + c.uri();
            LoadRun.Outcome outcome = new LoadRun(
                            CommandLine.parse(
                                    "--direct",
                                    uris,
                                    "--ids",
                                    "100000",
                                    "--batch",
                                    "5000",
                                    "--dup-spread",
                                    "20000",
                                    "--quiet"),
                            silent())
                    .execute();
            List<ScenarioResult> results = outcome.results();
            assertEquals(
                    List.of("cold", "retry", "duplicate", "mixed"),
                    results.stream().map(ScenarioResult::scenario).toList());
            assertEquals(100_000, results.get(0).tally().count(Verdict.NEW));
            assertEquals(100_000, results.get(1).tally().count(Verdict.RETRY));
            assertEquals(100_000, results.get(2).tally().count(Verdict.DUPLICATE));
            ScenarioResult mixed = results.get(3);
            assertTrue(
                    mixed.tally().count(Verdict.DUPLICATE) > 3000,
                    "duplicates found: " + mixed.tally().count(Verdict.DUPLICATE));
            for (ScenarioResult r : results) {
                assertTrue(
                        r.tally().safe(),
                        r.scenario() + ": " + r.tally().falseDrops() + " false drops, "
                                + r.tally().missedDuplicates() + " missed duplicates");
                assertEquals(0, r.tally().unexpected(), r.scenario());
                assertEquals(0, r.errorCount(), r.scenario() + " " + r.errors());
            }
            assertEquals(LoadRun.EXIT_OK, outcome.exitStatus());

            // Cold and mixed claimed 100,000 ids each (3 s of event time of their own at 2M a minute, 334
            // slices a second) and mixed's duplicates share their originals' buckets.
            long keys = 0;
            for (RedisServer shard : List.of(a, b, c)) {
                long n = (Long) shard.call("DBSIZE");
                assertTrue(n > 0, "every shard holds buckets");
                keys += n;
            }
            assertEquals(200_000.0 / keys, 100, 25, keys + " buckets for 200,000 ids");
            byte[] someKey = a.keys().get(0);
            assertEquals(14, someKey.length);
            long ttl = (Long) a.call("TTL".getBytes(StandardCharsets.US_ASCII), someKey);
            assertTrue(ttl > 86_000 && ttl <= 86_400, "buckets expire with the 24 h window: " + ttl);
        }
    }

    private static PrintStream silent() {
        return new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8);
    }
}
