package dev.dedup.examples.engines;

import dev.dedup.examples.bench.BenchOptions;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * What one engine benchmark run does.
 *
 * @param rate        unique messages a second; copies come on top (about 17 % more records)
 * @param window      how long a copy must still be caught: Flink's TTL, the window store's retention, the agent's
 *                    {@code --window}; late copies and late originals come 0.3 to 0.6 of it late
 * @param duration    how long messages are written at {@code rate}; late copies follow for up to 0.6 window
 * @param checkpoint  Flink's checkpoint interval (Kafka Streams commits every 100 ms under exactly-once)
 * @param partitions  of each side's input topic
 * @param parallelism Flink's (Kafka Streams runs one stream thread)
 * @param killAt      when set, the job is killed ({@code kill -9}) that long into the stream and started again at
 *                    once on its checkpoints or state directory; zero for none
 * @param out         where the JSON and TSV results are written
 * @param work        a directory for the broker, the agents, the checkpoints and state (removed by the caller)
 */
public record EngineOptions(
        int rate,
        Duration window,
        Duration duration,
        Duration checkpoint,
        int partitions,
        int parallelism,
        List<EngineSide> sides,
        Duration killAt,
        Path out,
        Path work,
        long seed) {

    public EngineOptions {
        if (rate < 1) {
            throw new IllegalArgumentException("--rate: " + rate + " (at least 1 id a second)");
        }
        if (window.toSeconds() < 2) {
            throw new IllegalArgumentException("--window: " + window + " (at least 2s)");
        }
        if (duration.compareTo(window) < 0) {
            throw new IllegalArgumentException("--duration: " + duration + " is shorter than the window " + window);
        }
        if (killAt.compareTo(duration) >= 0) {
            throw new IllegalArgumentException("--kill-at: " + killAt + " is not within the duration " + duration);
        }
        if (sides.isEmpty()) {
            throw new IllegalArgumentException("--sides: none");
        }
    }

    /** Unique messages the run writes. */
    public int unique() {
        return (int) Math.min(Integer.MAX_VALUE, rate * duration.toSeconds());
    }

    /**
     * Parses {@code --rate N --window 2m --duration 4m --checkpoint 10s --partitions 4 --parallelism 2 --sides a,b
     * --kill-at 0 --out DIR --work DIR --seed N}.
     */
    public static EngineOptions parse(String[] args) {
        int rate = 1_000;
        Duration window = Duration.ofMinutes(2);
        Duration duration = Duration.ofMinutes(4);
        Duration checkpoint = Duration.ofSeconds(10);
        int partitions = 4;
        int parallelism = 2;
        List<EngineSide> sides = Arrays.asList(EngineSide.values());
        Duration killAt = Duration.ZERO;
        Path out = Path.of("target");
        Path work = null;
        long seed = 42;
        for (int i = 0; i < args.length; i++) {
            String flag = args[i];
            if (i + 1 >= args.length) {
                throw new IllegalArgumentException(flag + ": no value");
            }
            String v = args[++i];
            switch (flag) {
                case "--rate" -> rate = Integer.parseInt(v);
                case "--window" -> window = BenchOptions.duration(flag, v);
                case "--duration" -> duration = BenchOptions.duration(flag, v);
                case "--checkpoint" -> checkpoint = BenchOptions.duration(flag, v);
                case "--partitions" -> partitions = Integer.parseInt(v);
                case "--parallelism" -> parallelism = Integer.parseInt(v);
                case "--sides" -> {
                    List<EngineSide> s = new ArrayList<>();
                    for (String label : v.split(",")) {
                        s.add(EngineSide.of(label.trim()));
                    }
                    sides = s;
                }
                case "--kill-at" -> killAt = BenchOptions.duration(flag, v);
                case "--out" -> out = Path.of(v);
                case "--work" -> work = Path.of(v);
                case "--seed" -> seed = Long.parseLong(v);
                default -> throw new IllegalArgumentException("unknown flag " + flag);
            }
        }
        if (work == null) {
            throw new IllegalArgumentException("--work: required (a directory the caller removes)");
        }
        return new EngineOptions(
                rate, window, duration, checkpoint, partitions, parallelism, sides, killAt, out, work, seed);
    }
}
