package dev.dedup.examples.bench;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.stream.Collectors;

/**
 * What one benchmark run does: the produce rate, the window (the agent's {@code --window} and Spark's watermark
 * delay), how long the stream is written, the micro-batch trigger, the sides, and where the results go.
 *
 * @param rate        unique messages a second; copies come on top (about 17 % more records)
 * @param window      how long a copy must still be caught: late copies and late originals come 0.3 to 0.6 of it
 *                    late (Traffic's 3 to 6 minutes at 10 minutes)
 * @param duration    how long messages are written at {@code rate}; late copies follow for up to 0.6 window
 * @param trigger     the micro-batch interval ({@code Trigger.ProcessingTime})
 * @param killAt      when set, the Spark job is killed ({@code kill -9}) that long into the stream and restarted from
 *                    its checkpoint; zero for none
 * @param shardRoundTrip the round trip added between the agent and its Redis shards by a delaying proxy
 *                    ({@link ShardDelay}); zero for none, the shards on loopback
 * @param shardJitter  each round trip {@code shardRoundTrip} ± this much
 * @param out         where the JSON and TSV results are written
 * @param work        a directory for the broker, the agents and the checkpoints (removed by the caller)
 */
public record BenchOptions(
        int rate,
        Duration window,
        Duration duration,
        Duration trigger,
        int partitions,
        List<Side> sides,
        Duration killAt,
        Duration shardRoundTrip,
        Duration shardJitter,
        Path out,
        Path work,
        long seed) {

    /** One way of deduplicating the stream. */
    public enum Side {
        /** {@code SparkDedupJob} with one agent on its embedded store, its defaults but {@code --window}. */
        OURS_EMBEDDED("ours-embedded"),
        /** {@code SparkDedupJob} with one agent on three Redis shards, its defaults but {@code --window}. */
        OURS_REDIS("ours-redis-3"),
        /** {@code withWatermark(event time, window).dropDuplicatesWithinWatermark("id")} on RocksDB. */
        SPARK("spark-rocksdb"),
        /** The same on Spark 3.5 (Scala 2.13): the job's classes on {@code spark-3.5/scala-2.13}'s classpath. */
        SPARK_35("spark-3.5-rocksdb");

        public final String label;

        Side(String label) {
            this.label = label;
        }

        /** Spark's own deduplication, on either line of Spark. */
        public boolean spark() {
            return this == SPARK || this == SPARK_35;
        }

        static Side of(String label) {
            for (Side s : values()) {
                if (s.label.equals(label)) {
                    return s;
                }
            }
            throw new IllegalArgumentException("--sides: " + label + " is none of "
                    + java.util.Arrays.stream(values()).map(s -> s.label).collect(Collectors.joining(", ")));
        }
    }

    public BenchOptions {
        if (rate < 1) {
            throw new IllegalArgumentException("--rate: " + rate + " (at least 1 id a second)");
        }
        if (window.toSeconds() < 2) {
            throw new IllegalArgumentException("--window: " + window + " (at least 2s)");
        }
        if (duration.compareTo(window) < 0) {
            throw new IllegalArgumentException("--duration: " + duration + " is shorter than the window " + window);
        }
        if (shardJitter.compareTo(shardRoundTrip) > 0) {
            throw new IllegalArgumentException(
                    "--shard-jitter: " + shardJitter + " is more than the round trip " + shardRoundTrip);
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
     * Parses {@code --rate N --window 10m --duration 30m --trigger 5s --partitions 4 --sides a,b --kill-at 0
     * --shard-round-trip 0 --shard-jitter 0 --out DIR --work DIR --seed N}; durations as the agent writes them
     * ({@code 500ms}, {@code 30s}, {@code 15m}), and {@code 300us} or {@code 0.3ms}.
     */
    public static BenchOptions parse(String[] args) {
        int rate = 1_000;
        Duration window = Duration.ofMinutes(10);
        Duration duration = Duration.ofMinutes(30);
        Duration trigger = Duration.ofSeconds(5);
        int partitions = 4;
        List<Side> sides = List.of(Side.OURS_EMBEDDED, Side.SPARK);
        Duration killAt = Duration.ZERO;
        Duration shardRoundTrip = Duration.ZERO;
        Duration shardJitter = Duration.ZERO;
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
                case "--window" -> window = duration(flag, v);
                case "--duration" -> duration = duration(flag, v);
                case "--trigger" -> trigger = duration(flag, v);
                case "--partitions" -> partitions = Integer.parseInt(v);
                case "--sides" -> {
                    List<Side> s = new ArrayList<>();
                    for (String label : v.split(",")) {
                        s.add(Side.of(label.trim()));
                    }
                    sides = s;
                }
                case "--kill-at" -> killAt = duration(flag, v);
                case "--shard-round-trip" -> shardRoundTrip = duration(flag, v);
                case "--shard-jitter" -> shardJitter = duration(flag, v);
                case "--out" -> out = Path.of(v);
                case "--work" -> work = Path.of(v);
                case "--seed" -> seed = Long.parseLong(v);
                default -> throw new IllegalArgumentException("unknown flag " + flag);
            }
        }
        if (work == null) {
            throw new IllegalArgumentException("--work: required (a directory the caller removes)");
        }
        return new BenchOptions(
                rate,
                window,
                duration,
                trigger,
                partitions,
                sides,
                killAt,
                shardRoundTrip,
                shardJitter,
                out,
                work,
                seed);
    }

    /** {@code 300us}, {@code 500ms}, {@code 30s}, {@code 15m}, {@code 2h}, or {@code 0}. */
    public static Duration duration(String flag, String v) {
        String s = v.trim().toLowerCase(Locale.ROOT);
        try {
            if (s.equals("0")) {
                return Duration.ZERO;
            }
            if (s.endsWith("us")) {
                return Duration.ofNanos(Long.parseLong(s.substring(0, s.length() - 2)) * 1000);
            }
            if (s.endsWith("ms")) { // 0.3ms as well as 500ms
                return Duration.ofNanos(Math.round(Double.parseDouble(s.substring(0, s.length() - 2)) * 1e6));
            }
            long n = Long.parseLong(s.substring(0, s.length() - 1));
            return switch (s.charAt(s.length() - 1)) {
                case 's' -> Duration.ofSeconds(n);
                case 'm' -> Duration.ofMinutes(n);
                case 'h' -> Duration.ofHours(n);
                default -> throw new NumberFormatException(s);
            };
        } catch (NumberFormatException | StringIndexOutOfBoundsException e) {
            throw new IllegalArgumentException(flag + ": " + v + " is not a duration (300us, 500ms, 30s, 15m, 2h)");
        }
    }
}
