package dev.dedup.examples.bench;

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
 * The pipeline benchmark ({@code loadtest/bench-pipeline.sh}, docs/loadtest.md): one KRaft broker, then each side in
 * turn at the same rate on a topic of its own ({@link SideRun}); prints the results as a Markdown table and writes
 * them to {@code pipeline-bench-<time>.json} (one object per side) and {@code .tsv} in {@code --out}. Exits 0 when
 * every side of ours left its sink exact and every side caught up with its stream, 1 otherwise, 2 on bad flags.
 */
public final class PipelineBench {

    public static void main(String[] args) throws Exception {
        BenchOptions options;
        try {
            options = BenchOptions.parse(args);
        } catch (IllegalArgumentException e) {
            System.err.println("PipelineBench: " + e.getMessage());
            System.exit(2);
            return;
        }
        // SIGTERM skips the finally blocks that stop the broker, the agents and the jobs: stop them here, by PID
        Runtime.getRuntime()
                .addShutdownHook(
                        new Thread(() -> ProcessHandle.current().descendants().forEach(ProcessHandle::destroy)));
        List<SideResult> results = run(options);
        boolean ok = results.stream()
                .allMatch(r -> r.caughtUp() && (BenchOptions.Side.of(r.side()).spark() || r.exact()));
        System.exit(ok ? 0 : 1);
    }

    /** Runs every side of {@code options} one after the other and reports them; returns what each measured. */
    public static List<SideResult> run(BenchOptions options) throws Exception {
        Files.createDirectories(options.out());
        List<SideResult> results = new ArrayList<>();
        log(String.format(
                Locale.ROOT,
                "%d ids/s for %s, window %s (copies %d-%d s late), trigger %s, %d partitions, %d cores: %s%s",
                options.rate(),
                options.duration(),
                options.window(),
                options.window().toSeconds() * 3 / 10,
                options.window().toSeconds() * 6 / 10,
                options.trigger(),
                options.partitions(),
                Runtime.getRuntime().availableProcessors(),
                options.sides(),
                options.shardRoundTrip().isZero()
                        ? ""
                        : "; Redis shards " + options.shardRoundTrip().toNanos() / 1000 + " µs ± "
                                + options.shardJitter().toNanos() / 1000 + " µs away"));
        try (KafkaBroker broker = KafkaBroker.start(options.work().resolve("kafka"))) {
            for (BenchOptions.Side side : options.sides()) {
                log(side.label + ": starting");
                try (SideRun run = new SideRun(options, side, broker)) {
                    SideResult r = run.run();
                    results.add(r);
                    log(side.label + ": " + r);
                }
            }
        }
        String table = table(results);
        System.out.println(table);
        String stamp = LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss"));
        Path json = options.out().resolve("pipeline-bench-" + stamp + ".json");
        Path tsv = options.out().resolve("pipeline-bench-" + stamp + ".tsv");
        ObjectMapper mapper = new ObjectMapper();
        StringBuilder lines = new StringBuilder();
        for (SideResult r : results) {
            lines.append(mapper.writeValueAsString(new Run(options, r))).append('\n');
        }
        Files.writeString(json, lines);
        StringBuilder t = new StringBuilder(String.join("\t", SideResult.HEADER)).append('\n');
        for (SideResult r : results) {
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
            String trigger,
            int partitions,
            String shardRoundTrip,
            String shardJitter,
            SideResult result) {
        Run(BenchOptions o, SideResult r) {
            this(
                    o.rate(),
                    o.window().toString(),
                    o.duration().toString(),
                    o.trigger().toString(),
                    o.partitions(),
                    o.shardRoundTrip().toString(),
                    o.shardJitter().toString(),
                    r);
        }
    }

    static String table(List<SideResult> results) {
        StringBuilder sb = new StringBuilder();
        sb.append("| ").append(String.join(" | ", SideResult.HEADER)).append(" |\n");
        sb.append("|").append("---|".repeat(SideResult.HEADER.size())).append('\n');
        for (SideResult r : results) {
            sb.append("| ").append(String.join(" | ", r.row())).append(" |\n");
        }
        return sb.toString();
    }

    private static void log(String line) {
        System.err.println("bench-pipeline: " + line);
    }

    private PipelineBench() {}
}
