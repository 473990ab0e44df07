package dev.dedup.loadtest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dedup.agent.Agent;
import dev.dedup.agent.config.AgentOptions;
import dev.dedup.agent.config.EmbeddedStoreOptions;
import dev.dedup.agent.config.HttpOptions;
import dev.dedup.agent.config.WindowOptions;
import dev.dedup.loadtest.report.ScenarioResult;
import dev.dedup.wire.Verdict;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The generator against a real agent on the embedded store, in this JVM. */
class LoadGeneratorEndToEndTest {

    @TempDir
    static Path dataDir;

    private static Agent agent;
    private static String target;

    @BeforeAll
    static void startAgent() {
        agent = Agent.start(new AgentOptions(
                HttpOptions.builder()
                        .port(0)
                        .maxBatch(10000)
                        .maxBody(8L << 20)
                        .idleTimeout(Duration.ofSeconds(30))
                        .eventLoops(2)
                        .shutdownGrace(Duration.ofSeconds(2))
                        .build(),
                new EmbeddedStoreOptions(dataDir, 1 << 20, 8),
                WindowOptions.defaults()));
        target = "http://127.0.0.1:" + agent.port();
    }

    @AfterAll
    static void stopAgent() {
        if (agent != null) {
            agent.close();
        }
    }

    @Test
    void all_over50000Ids_everyVerdictAsExpected() {
        LoadOptions options = CommandLine.parse("--target", target, "--ids", "50000", "--scenario", "all", "--quiet");
        LoadRun.Outcome outcome = new LoadRun(options, silent()).execute();

        List<ScenarioResult> results = outcome.results();
        assertEquals(
                List.of("cold", "retry", "duplicate", "mixed"),
                results.stream().map(ScenarioResult::scenario).toList());
        Verdict[] expected = {Verdict.NEW, Verdict.RETRY, Verdict.DUPLICATE};
        for (int i = 0; i < 3; i++) {
            ScenarioResult r = results.get(i);
            assertEquals(50_000, r.ids(), r.scenario());
            assertEquals(50, r.requests(), r.scenario());
            assertEquals(50_000, r.tally().count(expected[i]), r.scenario());
            assertEquals(0, r.tally().falseDrops(), r.scenario());
            assertEquals(0, r.tally().missedDuplicates(), r.scenario());
            assertEquals(0, r.tally().unexpected(), r.scenario());
            assertEquals(0, r.errorCount(), r.scenario());
            assertEquals(50, r.latencyMicros().getTotalCount(), r.scenario());
            assertFalse(r.aborted());
        }
        ScenarioResult mixed = results.get(3);
        assertTrue(mixed.ids() > 50_000, "originals plus duplicates and replays: " + mixed.ids());
        assertEquals(50_000, mixed.tally().count(Verdict.NEW), "every original is new, nothing else");
        assertTrue(mixed.tally().count(Verdict.DUPLICATE) > 1000, "about 5 % written twice");
        assertTrue(mixed.tally().count(Verdict.RETRY) > 0, "about 2 % of batches replayed");
        assertTrue(mixed.tally().safe());
        assertEquals(0, mixed.tally().unexpected());
        assertEquals(LoadRun.EXIT_OK, outcome.exitStatus());
    }

    @Test
    void fixedRate_takesAboutAsLongAsTheScheduleSays_andTheReportHasACurveOfEachKind(@TempDir Path dir)
            throws Exception {
        Path report = dir.resolve("run.html");
        LoadOptions options = CommandLine.parse(
                "--target",
                target,
                "--ids",
                "20000",
                "--batch",
                "500",
                "--scenario",
                "cold",
                "--rate",
                "20000",
                "--report",
                report.toString(),
                "--quiet");
        LoadRun run = new LoadRun(options, silent());
        LoadRun.Outcome outcome = run.execute();
        run.report(outcome, silent());
        ScenarioResult cold = outcome.results().get(0);
        // 40 batches at 20,000 ids/s: the last is due at 0.975 s.
        assertTrue(cold.seconds() >= 0.95, "paced, not as fast as possible: " + cold.seconds() + " s");
        assertEquals(20_000, cold.offeredRate());
        String html = java.nio.file.Files.readString(report);
        assertTrue(html.contains("latency (ms) by percentile") && html.contains("ids answered per second"), html);
        assertEquals(2, html.split("<polyline").length - 1, "one latency and one throughput curve");
        assertEquals(LoadRun.EXIT_OK, outcome.exitStatus());
    }

    @Test
    void json_withWarmup_thenALaterRunContinuesTheSameIds() {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        int status = Main.run(
                new String[] {
                    "--target",
                    target,
                    "--json",
                    "--ids",
                    "3000",
                    "--batch",
                    "250",
                    "--warmup",
                    "500",
                    "--scenario",
                    "cold",
                    "--run-id",
                    "e2e-json",
                    "--output",
                    "json",
                    "--quiet"
                },
                new PrintStream(out, true, StandardCharsets.UTF_8),
                silent());
        assertEquals(0, status, out.toString(StandardCharsets.UTF_8));
        List<String> json = out.toString(StandardCharsets.UTF_8)
                .lines()
                .filter(l -> l.startsWith("{"))
                .toList();
        assertEquals(1, json.size(), "one JSON line per measured scenario, none for the warm-up");
        String line = json.get(0);
        for (String field : List.of(
                "\"scenario\":\"cold\"",
                "\"ids\":3000,",
                "\"new\":3000,",
                "\"retry\":0,",
                "\"false_drops\":0,",
                "\"missed_duplicates\":0,",
                "\"errors\":0,",
                "\"batch\":250,",
                "\"workers\":4,",
                "\"format\":\"json\"",
                "\"p50_ms\":",
                "\"p99_ms\":",
                "\"p999_ms\":",
                "\"ids_per_s\":",
                "\"seconds\":",
                "\"duplicate\":0,")) {
            assertTrue(line.contains(field), field + " in " + line);
        }

        LoadRun.Outcome later = new LoadRun(
                        CommandLine.parse(
                                "--target",
                                target,
                                "--ids",
                                "3000",
                                "--batch",
                                "250",
                                "--scenario",
                                "duplicate",
                                "--run-id",
                                "e2e-json",
                                "--quiet"),
                        silent())
                .execute();
        assertEquals(3000, later.results().get(0).tally().count(Verdict.DUPLICATE));
        assertEquals(LoadRun.EXIT_OK, later.exitStatus());
    }

    @Test
    void severalTargets_andMoreWorkersThanBatches() {
        LoadOptions options = CommandLine.parse(
                "--target", target + "," + target, "--workers", "16", "--ids", "5000", "--batch", "1000", "--quiet");
        LoadRun.Outcome outcome = new LoadRun(options, silent()).execute();
        assertEquals(LoadRun.EXIT_OK, outcome.exitStatus());
        assertEquals(5000, outcome.results().get(2).tally().count(Verdict.DUPLICATE));
        assertTrue(outcome.results().get(3).tally().count(Verdict.DUPLICATE) > 0);
    }

    @Test
    void resend_aTargetThatRefusesEverything_batchesGoToTheOther_andSamplesAreWritten(@TempDir Path dir)
            throws Exception {
        String refusing = "http://127.0.0.1:" + dev.dedup.agent.testing.AgentProcess.freePort();
        Path samples = dir.resolve("samples.jsonl");
        LoadOptions options = CommandLine.parse(
                "--target",
                target + "," + refusing,
                "--scenario",
                "mixed",
                "--ids",
                "20000",
                "--batch",
                "500",
                "--rate",
                "10000",
                "--resend",
                "--samples",
                samples.toString(),
                "--sample-every",
                "1",
                "--quiet");
        LoadRun.Outcome outcome = new LoadRun(options, silent()).execute();

        ScenarioResult mixed = outcome.results().get(0);
        assertEquals(LoadRun.EXIT_OK, outcome.exitStatus());
        assertEquals(20_000, mixed.tally().count(Verdict.NEW), "every original answered, through the live agent");
        assertEquals(0, mixed.tally().unexpected());
        assertTrue(mixed.errorCount() > 0, "the refusing target was tried");
        List<String> lines = java.nio.file.Files.readAllLines(samples);
        assertTrue(lines.size() >= 2, lines.toString());
        assertTrue(lines.get(0).contains("\"p99_ms\":") && lines.get(0).contains("\"false_drops\":0"), lines.get(0));
        assertTrue(lines.get(lines.size() - 1).contains("\"failed_requests\":" + mixed.errorCount()), lines.toString());
    }

    private static PrintStream silent() {
        return new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8);
    }
}
