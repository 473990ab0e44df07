package dev.dedup.examples.engines;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.dedup.examples.testing.KafkaBroker;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The engine benchmark ({@code loadtest/bench-engines.sh}, docs/loadtest.md): one KRaft broker, then each side in turn
 * at the same rate on topics of its own ({@link EngineRun}): Flink's and Kafka Streams' own deduplication at their
 * best beside each engine with the library. Prints the results as a Markdown table and writes them to {@code
 * engine-bench-<time>.json} (one object per side) and {@code .tsv} in {@code --out}. Exits 0 when every side caught up
 * with its stream and every side of ours wrote each message once, 1 otherwise, 2 on bad flags.
 */
public final class EngineBench {

    public static void main(String[] args) throws Exception {
        EngineOptions options;
        try {
            options = EngineOptions.parse(args);
        } catch (IllegalArgumentException e) {
            System.err.println("EngineBench: " + e.getMessage());
            System.exit(2);
            return;
        }
        // SIGTERM skips the finally blocks that stop the broker, the agents and the jobs: stop them here, by PID
        Runtime.getRuntime()
                .addShutdownHook(
                        new Thread(() -> ProcessHandle.current().descendants().forEach(ProcessHandle::destroy)));
        List<EngineResult> results = run(options);
        System.exit(
                results.stream().allMatch(r -> r.caughtUp() && (r.exact() || !EngineSide.of(r.side()).ours)) ? 0 : 1);
    }

    /** Runs every side of {@code options} one after the other and reports them; returns what each measured. */
    public static List<EngineResult> run(EngineOptions options) throws Exception {
        Files.createDirectories(options.out());
        log(String.format(
                Locale.ROOT,
                "%d ids/s for %s, window %s (copies %d-%d s late), Flink checkpoints every %s, %d partitions,"
                        + " %d cores: %s%s",
                options.rate(),
                options.duration(),
                options.window(),
                options.window().toSeconds() * 3 / 10,
                options.window().toSeconds() * 6 / 10,
                options.checkpoint(),
                options.partitions(),
                Runtime.getRuntime().availableProcessors(),
                options.sides(),
                options.killAt().isZero() ? "" : "; each job killed (kill -9) " + options.killAt() + " in"));
        List<EngineResult> results = new ArrayList<>();
        Path kafka = options.work().resolve("kafka");
        try (KafkaBroker broker = KafkaBroker.start(kafka)) {
            for (EngineSide side : options.sides()) {
                log(side.label + ": starting");
                try (EngineRun run = new EngineRun(options, side, broker, kafka.resolve("data"))) {
                    EngineResult r = run.run();
                    results.add(r);
                    log(side.label + ": " + r);
                }
            }
        }
        StringBuilder table = new StringBuilder();
        table.append("| ").append(String.join(" | ", EngineResult.HEADER)).append(" |\n");
        table.append("|").append("---|".repeat(EngineResult.HEADER.size())).append('\n');
        for (EngineResult r : results) {
            table.append("| ").append(String.join(" | ", r.row())).append(" |\n");
        }
        System.out.println(table);
        String stamp = LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss"));
        Path json = options.out().resolve("engine-bench-" + stamp + ".json");
        Path tsv = options.out().resolve("engine-bench-" + stamp + ".tsv");
        ObjectMapper mapper = new ObjectMapper();
        StringBuilder lines = new StringBuilder();
        for (EngineResult r : results) {
            lines.append(mapper.writeValueAsString(new Run(options, r))).append('\n');
        }
        Files.writeString(json, lines);
        StringBuilder t = new StringBuilder(String.join("\t", EngineResult.HEADER)).append('\n');
        for (EngineResult r : results) {
            t.append(String.join("\t", r.row())).append('\n');
        }
        Files.writeString(tsv, t);
        log("results in " + json + " and " + tsv);
        return results;
    }

    /** A JSON line: the run's settings and one side's figures. */
    record Run(
            int rate,
            String window,
            String duration,
            String checkpoint,
            int partitions,
            int parallelism,
            String killAt,
            EngineResult result) {
        Run(EngineOptions o, EngineResult r) {
            this(
                    o.rate(),
                    o.window().toString(),
                    o.duration().toString(),
                    o.checkpoint().toString(),
                    o.partitions(),
                    o.parallelism(),
                    o.killAt().toString(),
                    r);
        }
    }

    private static void log(String line) {
        System.err.println("bench-engines: " + line);
    }

    private EngineBench() {}
}
