package dev.dedup.loadtest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dedup.agent.Agent;
import dev.dedup.agent.config.AgentOptions;
import dev.dedup.agent.config.EmbeddedStoreOptions;
import dev.dedup.agent.config.HttpOptions;
import dev.dedup.agent.config.WindowOptions;
import dev.dedup.loadtest.driver.Target;
import dev.dedup.loadtest.workload.EventTimeEncoding;
import dev.dedup.loadtest.workload.Format;
import dev.dedup.loadtest.workload.Scenario;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CommandLineTest {

    @Test
    void noArguments_givesTheDefaults_withARandomRunId() {
        LoadOptions o = CommandLine.parse();
        assertEquals(List.of(new Target("127.0.0.1", 7070)), o.targets());
        assertEquals(4, o.workers());
        assertEquals(1000, o.batch());
        assertEquals(1_000_000, o.ids());
        assertEquals(Format.BINARY, o.format());
        assertEquals("loadtest", o.namespace());
        assertEquals(List.of(Scenario.COLD, Scenario.RETRY, Scenario.DUPLICATE, Scenario.MIXED), o.scenarios());
        assertEquals(LoadOptions.Mix.DEFAULT, o.mix());
        assertEquals(0, o.rate());
        assertFalse(o.isDirect());
        assertEquals(null, o.report());
        assertEquals(0, o.warmup());
        assertEquals(0, o.maxErrors());
        assertFalse(o.json());
        assertFalse(o.quiet());
        assertFalse(o.runIdGiven());
        assertFalse(o.runId().isEmpty());
        assertTrue(!o.runId().equals(CommandLine.parse().runId()), "every run gets fresh ids");
    }

    @Test
    void everyOption_spaceOrEqualsSeparated() {
        LoadOptions o = CommandLine.parse(
                "--target",
                "http://10.0.0.1:7071,http://localhost:7072",
                "--workers=8",
                "--batch",
                "10k",
                "--ids",
                "2_000_000",
                "--json",
                "--ns",
                "clicks",
                "--scenario",
                "cold",
                "--seed",
                "-5",
                "--run-id",
                "abc",
                "--warmup",
                "1M",
                "--output",
                "json",
                "--quiet",
                "--max-errors",
                "3",
                "--timeout-ms",
                "500");
        assertEquals(List.of(new Target("10.0.0.1", 7071), new Target("localhost", 7072)), o.targets());
        assertEquals(8, o.workers());
        assertEquals(10_000, o.batch());
        assertEquals(2_000_000, o.ids());
        assertEquals(Format.JSON, o.format());
        assertEquals("clicks", o.namespace());
        assertEquals(List.of(Scenario.COLD), o.scenarios());
        assertEquals(-5, o.seed());
        assertEquals("abc", o.runId());
        assertTrue(o.runIdGiven());
        assertEquals(1_000_000, o.warmup());
        assertTrue(o.json());
        assertTrue(o.quiet());
        assertEquals(3, o.maxErrors());
        assertEquals(500, o.timeout().toMillis());
    }

    @Test
    void mixedDirectRateAndReport() {
        LoadOptions o = CommandLine.parse(
                "--direct",
                "redis://127.0.0.1:1,redis://127.0.0.1:2",
                "--scenario",
                "cold,mixed",
                "--dup-rate",
                "0.1",
                "--retry-rate",
                "0",
                "--dup-spread",
                "10k",
                "--rate",
                "200k",
                "--report",
                "r.html");
        assertEquals(List.of("redis://127.0.0.1:1", "redis://127.0.0.1:2"), o.direct());
        assertTrue(o.isDirect());
        assertEquals(List.of(Scenario.COLD, Scenario.MIXED), o.scenarios());
        assertEquals(new LoadOptions.Mix(0.1, 0, 10_000), o.mix());
        assertEquals(200_000, o.rate());
        assertEquals(java.nio.file.Path.of("r.html"), o.report());
        assertEquals(
                List.of(Scenario.MIXED),
                CommandLine.parse("--scenario", "mixed").scenarios(),
                "mixed has ids of its own: no run id needed");
        assertThrows(UsageException.class, () -> CommandLine.parse("--scenario", "mixed,retry"));
    }

    @Test
    void retryAlone_needsTheRunIdOfAnEarlierRun() {
        UsageException e = assertThrows(UsageException.class, () -> CommandLine.parse("--scenario", "retry"));
        assertTrue(e.getMessage().contains("--run-id"), e.getMessage());
        assertEquals(
                List.of(Scenario.DUPLICATE),
                CommandLine.parse("--scenario", "duplicate", "--run-id", "r1").scenarios());
    }

    @Test
    void badArguments_sayWhichOneAndWhy() {
        assertMessage("--workers: 0 is out of range; use 1 to 4096", "--workers", "0");
        assertMessage("--batch: 'ten' is not a whole number", "--batch", "ten");
        assertMessage("--ids needs a value (see --help)", "--ids");
        assertMessage("unknown option '--bogus' (see --help)", "--bogus", "1");
        assertMessage("unexpected argument 'stray' (see --help)", "stray");
        assertMessage("--binary and --json exclude each other", "--binary", "--json");
        assertMessage(
                "--scenario: 'warm' is not one of cold, retry, duplicate, mixed, all (or a comma-separated list)",
                "--scenario",
                "warm");
        assertMessage("--target: 'https://h:1' must start with http://", "--target", "https://h:1");
        assertMessage("--output: 'xml' is not table or json", "--output", "xml");
        assertMessage("--quiet takes no value", "--quiet=yes");
        assertMessage("--dup-rate: 1.5 is out of range; use 0 to 1", "--dup-rate", "1.5");
        assertMessage("--retry-rate: 'some' is not a number", "--retry-rate", "some");
        assertMessage("--rate: 0 is out of range; use 1 to 1000000000", "--rate", "0");
        assertMessage(
                "--direct and --target exclude each other: the run goes to Redis or to agents",
                "--target",
                "http://h:1",
                "--direct",
                "redis://h:2");
        assertMessage("--direct: 'http://h:2' is not redis://HOST:PORT", "--direct", "http://h:2");
        assertMessage(
                "--json is a request format of the agent; --direct sends Redis commands",
                "--direct",
                "redis://h:2",
                "--json");
        assertTrue(parseError("--ns", "no spaces").startsWith("--ns: 'no spaces' is not a namespace"));
        assertTrue(parseError("--target", "http://h:1/v1/claims").contains("only http://HOST:PORT"));
    }

    @Test
    void noEventTimes_byDefault() {
        assertEquals(0, CommandLine.parse().eventEpoch());
        assertEquals(0, CommandLine.parse("--json").eventEpoch());
    }

    @Test
    void eventTime_startsOnTheHourFourHoursBack_unlessAnEpochIsGiven() {
        long before = System.currentTimeMillis() / 1000;
        long epoch = CommandLine.parse("--event-time").eventEpoch();
        long after = System.currentTimeMillis() / 1000;
        assertEquals(0, epoch % 3600, "on the hour: " + epoch);
        assertTrue(
                epoch > before - 5 * 3600 && epoch <= after - 4 * 3600,
                "4 to 5 hours back: " + epoch + " at " + before);
        assertTrue(epoch + EventTimeEncoding.RUN_SPAN_SECONDS < before, "every event time of the run is past");

        assertEquals(
                1_767_225_600L,
                CommandLine.parse("--event-time", "--event-epoch", "1767225600").eventEpoch());
        assertEquals(
                1_767_225_600L,
                CommandLine.parse("--event-epoch=1_767_225_600", "--event-time").eventEpoch(),
                "in either order");
        LoadOptions json = CommandLine.parse("--json", "--event-time", "--event-epoch", "1");
        assertEquals(1, json.eventEpoch());
        assertEquals(Format.JSON, json.format());
        assertEquals(
                4_294_955_295L,
                CommandLine.parse("--event-time", "--event-epoch", "4294955295").eventEpoch(),
                "the last epoch whose every message second fits in 32 bits");
    }

    @Test
    void badEventTimeArguments_sayWhichOneAndWhy() {
        assertMessage("--event-epoch needs --event-time", "--event-epoch", "1767225600");
        assertMessage(
                "--event-time is for agents; --direct always files by event time",
                "--direct",
                "redis://h:2",
                "--event-time");
        assertMessage(
                "--event-time is for agents; --direct always files by event time",
                "--direct",
                "redis://h:2",
                "--event-time",
                "--event-epoch",
                "5");
        assertMessage("--event-epoch: 0 is out of range; use 1 to 4294955295", "--event-time", "--event-epoch", "0");
        assertMessage(
                "--event-epoch: 4294955296 is out of range; use 1 to 4294955295",
                "--event-time",
                "--event-epoch",
                "4294955296");
        assertMessage(
                "--event-epoch: 1767225600000 is out of range; use 1 to 4294955295",
                "--event-time",
                "--event-epoch",
                "1767225600000");
        assertMessage("--event-epoch: 'today' is not a whole number", "--event-time", "--event-epoch", "today");
        assertMessage("--event-epoch needs a value (see --help)", "--event-time", "--event-epoch");
        assertMessage("--event-time takes no value", "--event-time=yes");
    }

    @Test
    void helpDescribesTheEventTimeFlags() {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        assertEquals(0, Main.run(new String[] {"--help"}, print(out), print(new ByteArrayOutputStream())));
        String usage = out.toString(StandardCharsets.UTF_8);
        assertTrue(usage.contains("--event-time") && usage.contains("--event-epoch SECOND"), usage);
        assertTrue(usage.contains("--namespace-event-rate"), "names the agent setting it needs: " + usage);
    }

    @Test
    void main_printsOneLineAndExitsTwo_onBadArguments_andUsageOnHelp() {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int status = Main.run(new String[] {"--workers", "-1"}, print(out), print(err));
        assertEquals(2, status);
        String line = err.toString(StandardCharsets.UTF_8);
        assertEquals(1, line.lines().count(), line);
        assertTrue(line.startsWith("dedup-loadtest: --workers"), line);

        assertEquals(0, Main.run(new String[] {"--ids", "5", "--help"}, print(out), print(err)));
        assertTrue(out.toString(StandardCharsets.UTF_8).startsWith("usage: java -jar dedup-loadtest.jar"));
    }

    @Test
    void main_withEventTime_isAnsweredByAnAgentFilingByEventTime_andSaysBinaryPlusTs(@TempDir Path dataDir) {
        try (Agent agent = Agent.start(new AgentOptions(
                HttpOptions.builder()
                        .port(0)
                        .maxBatch(10000)
                        .maxBody(8L << 20)
                        .idleTimeout(Duration.ofSeconds(30))
                        .eventLoops(2)
                        .shutdownGrace(Duration.ofSeconds(2))
                        .build(),
                new EmbeddedStoreOptions(dataDir, 1 << 16, 8),
                new WindowOptions(WindowOptions.DEFAULT_WINDOW, Map.of(), Map.of("loadtest", 33_334))))) {
            String target = "http://127.0.0.1:" + agent.port();
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            int status = Main.run(
                    new String[] {
                        "--target",
                        target,
                        "--event-time",
                        "--ids",
                        "2000",
                        "--batch",
                        "250",
                        "--output",
                        "json",
                        "--quiet"
                    },
                    print(out),
                    print(new ByteArrayOutputStream()));
            String lines = out.toString(StandardCharsets.UTF_8);
            assertEquals(0, status, lines);
            List<String> json = lines.lines().filter(l -> l.startsWith("{")).toList();
            assertEquals(4, json.size(), lines);
            for (String line : json) {
                assertTrue(
                        line.contains("\"format\":\"binary+ts\"")
                                && line.contains("\"errors\":0,")
                                && line.contains("\"false_drops\":0,")
                                && line.contains("\"missed_duplicates\":0,"),
                        line);
            }

            out.reset();
            status = Main.run(
                    new String[] {
                        "--target",
                        target,
                        "--json",
                        "--event-time",
                        "--ids",
                        "500",
                        "--scenario",
                        "cold",
                        "--output",
                        "json",
                        "--quiet"
                    },
                    print(out),
                    print(new ByteArrayOutputStream()));
            assertEquals(0, status, out.toString(StandardCharsets.UTF_8));
            assertTrue(
                    out.toString(StandardCharsets.UTF_8).contains("\"format\":\"json+ts\""),
                    out.toString(StandardCharsets.UTF_8));

            out.reset();
            status = Main.run(
                    new String[] {
                        "--target", target, "--ids", "500", "--scenario", "cold", "--output", "json", "--quiet"
                    },
                    print(out),
                    print(new ByteArrayOutputStream()));
            assertEquals(
                    LoadRun.EXIT_ERRORS,
                    status,
                    "without --event-time every request is a 400: " + out.toString(StandardCharsets.UTF_8));
        }
    }

    private static PrintStream print(ByteArrayOutputStream sink) {
        return new PrintStream(sink, true, StandardCharsets.UTF_8);
    }

    private static void assertMessage(String expected, String... args) {
        assertEquals(expected, parseError(args));
    }

    private static String parseError(String... args) {
        return assertThrows(UsageException.class, () -> CommandLine.parse(args)).getMessage();
    }
}
