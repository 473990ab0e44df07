package dev.dedup.examples.cross;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dedup.examples.flink.FlinkMember;
import dev.dedup.examples.sink.AggregateSink;
import dev.dedup.examples.sink.Event;
import dev.dedup.examples.testing.ChildJvm;
import dev.dedup.examples.testing.ConsumerMember;
import dev.dedup.examples.testing.KafkaBroker;
import dev.dedup.examples.testing.Postgres;
import dev.dedup.examples.testing.Report;
import dev.dedup.examples.testing.Services;
import dev.dedup.examples.testing.Sink;
import dev.dedup.examples.testing.SparkMember;
import dev.dedup.examples.testing.StreamsMember;
import dev.dedup.examples.testing.Traffic;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Every engine on one namespace: a Kafka consumer loop (the ready {@code JdbcSink} into PostgreSQL), a Kafka Streams
 * application (into a topic), a Spark job ({@code SparkDedupJob}, micro-batches into PostgreSQL) and a Flink job (the
 * operator, then Flink's transactional {@code KafkaSink} into a topic), each in a JVM of its own, read the same
 * messages with copies from a topic of their own and claim in one namespace. Each is killed ({@code kill -9}) once
 * mid-stream, while it holds claims whose output is not committed, and started again: the loop after writing a batch
 * and before committing its offsets, the application with an empty state directory, the Spark job on its checkpoint
 * once its tasks have claimed (Spark 4.1.1 fails that start once it has committed the batch it ran again, and the
 * test starts it once more, as docs/restarts.md says), the Flink job from its newest checkpoint. Over the four
 * outputs together each message is written once, and each engine wrote some: whichever claimed a message first keeps
 * it, the others answer duplicate.
 *
 * <p>Each engine's own deduplication in the same setting (Flink's keyed state with a TTL, Kafka Streams' state store)
 * remembers what its own job read: each of the two writes every message once, so every message is written twice.
 *
 * <p>The test lives here because its JVM needs neither Spark nor Flink: the Flink jobs run on this module's test
 * classpath ({@link FlinkMember#start}), the others on shared/examples' ({@link ChildJvm#classpath}).
 */
class CrossEngineIT {

    private static final int PARTITIONS = 3;
    private static final String NS = "cross";
    /** How long each topic's copy of the stream is written for, while the engines run. */
    private static final Duration WRITING = Duration.ofSeconds(30);

    private static final Duration START = Duration.ofSeconds(120);
    private static final Pattern COUNT = Pattern.compile("(\\w+)=(\\d+)");
    /** A member's status line starts with a word in capitals ({@code CLAIMED}); its logs' lines do not. */
    private static final Pattern STATUS = Pattern.compile("[A-Z]{5,}( |$)");

    @RegisterExtension
    static final Services kafka = Services.kafka("cross").withAgent();

    /**
     * The four topics hold the same copies, each written over {@link #WRITING} from another quarter of the stream on
     * (then from its start): the consumer loop's from the start, the application's from the second quarter, the Flink
     * job's from the third, the Spark job's from the fourth. Each engine meets one quarter of the messages first, and
     * the engine before it meets them a quarter of the time later. The Spark job's topic is written first, the others
     * from the moment its first tasks have claimed: a Spark job is the slowest to run its first micro-batch.
     */
    @Test
    void fourEnginesOnOneNamespace_eachKilledOnce_writeEachMessageOnceBetweenThem() throws Exception {
        long started = System.nanoTime();
        Traffic traffic = Traffic.generate(400, PARTITIONS, 59);
        List<String> topics = List.of("cross-loop", "cross-streams", "cross-flink", "cross-spark");
        for (String topic : topics) {
            kafka.broker().createTopic(topic, PARTITIONS);
        }
        kafka.broker().createTopic("cross-streams-out", 1);
        kafka.broker().createTopic("cross-flink-out", 1);
        List<ChildJvm> jvms = Collections.synchronizedList(new ArrayList<>());
        ExecutorService threads = Executors.newFixedThreadPool(2 * topics.size()); // the writers, the killers
        try (Postgres loopDb = database("cross_loop");
                Postgres sparkDb = database("cross_spark")) {
            List<String> loopArgs =
                    List.of(kafka.broker().bootstrap(), "cross-loop", "cross-loop", loopDb.url(), NS, "jdbcSink");
            List<String> sparkArgs = List.of(
                    kafka.broker().bootstrap(),
                    "cross-spark",
                    kafka.dir().resolve("spark-checkpoint").toString(),
                    sparkDb.url(),
                    NS);
            List<String> flinkArgs = List.of(
                    kafka.broker().bootstrap(),
                    "cross-flink",
                    "cross-flink-out",
                    kafka.dir().resolve("flink-checkpoints").toString(),
                    NS);
            ChildJvm loop1 = track(jvms, member("loop-1", ConsumerMember.class, with(loopArgs, "pauseBeforeCommit=4")));
            ChildJvm streams1 = track(jvms, streams("streams-1", "cross-streams", "cross-streams-out", "state-1"));
            ChildJvm spark1 = track(jvms, spark("spark-1", sparkArgs));
            ChildJvm flink1 = track(jvms, flink("flink-1", flinkArgs));
            loop1.awaitLine(l -> l.startsWith("STARTED"), START);
            streams1.awaitLine(l -> l.startsWith("RUNNING"), START);
            spark1.awaitLine(l -> l.startsWith("STARTED"), START);
            flink1.awaitLine(l -> l.startsWith("CHECKPOINT"), START);

            int copies = traffic.copies().size();
            List<Future<Integer>> writes = new ArrayList<>();
            for (int q = topics.size() - 1; q >= 0; q--) {
                Traffic topicTraffic = traffic.startingAt(q * copies / topics.size());
                String topic = topics.get(q);
                writes.add(
                        threads.submit(() -> topicTraffic.produce(kafka.broker().bootstrap(), topic, WRITING)));
                if (topic.equals("cross-spark")) {
                    spark1.awaitLine(l -> l.startsWith("CLAIMED"), START);
                }
            }
            // Each killed, at the same time as the others, while it holds claims whose output is not committed yet,
            // and started again at once; the application and the Flink job once they have claimed 20 messages first.
            // What an engine claimed stays its own: its run after the kill reads those records again, gets retry.
            Future<ChildJvm> loop2 = threads.submit(() -> {
                killWhen(loop1, lines -> latest(lines).startsWith("PAUSED")); // its batch written, not committed
                return track(jvms, member("loop-2", ConsumerMember.class, loopArgs));
            });
            Future<ChildJvm> streams2 = threads.submit(() -> {
                killWhen(
                        streams1,
                        lines -> latest(lines).startsWith("FLUSHED")
                                && count(latest(lines), "new") > 0
                                && claimedNew(lines) >= 20);
                return track(jvms, streams("streams-2", "cross-streams", "cross-streams-out", "state-2"));
            });
            Future<ChildJvm> spark2 = threads.submit(() -> {
                killWhen(spark1, lines -> latest(lines).startsWith("CLAIMED")); // its batch claimed, not written
                return track(jvms, spark("spark-2", sparkArgs));
            });
            Future<ChildJvm> flink2 = threads.submit(() -> {
                killWhen(
                        flink1,
                        lines -> latest(lines).startsWith("CLAIMED") // claimed since a checkpoint
                                && count(latest(lines), "new") > 0
                                && count(latest(lines), "committed") > 0 // that committed output
                                && claimedNew(lines) >= 20);
                return track(jvms, flink("flink-2", flinkArgs));
            });
            for (Future<Integer> w : writes) {
                assertEquals(copies, w.get(START.toSeconds(), TimeUnit.SECONDS), "every record written to every topic");
            }
            ChildJvm loop = loop2.get(START.toSeconds(), TimeUnit.SECONDS);
            ChildJvm streams = streams2.get(START.toSeconds(), TimeUnit.SECONDS);
            ChildJvm spark = spark2.get(START.toSeconds(), TimeUnit.SECONDS);
            ChildJvm flink = flink2.get(START.toSeconds(), TimeUnit.SECONDS);
            awaitLoopCaughtUp(loopDb, "cross-loop");
            awaitCommitted("cross-streams", "cross-streams", streams);
            sparkCaughtUp(spark, jvms, sparkArgs, "cross-spark");
            awaitFlinkCommitted("cross-flink", flink);

            Map<String, Integer> byLoop = Sink.applied(loopDb);
            Map<String, Integer> byStreams = kafka.broker().committedMessageIds("cross-streams-out");
            Map<String, Integer> bySpark = Sink.applied(sparkDb);
            Map<String, Integer> byFlink = flinkOutput("cross-flink-out", traffic);
            Map<String, Integer> written = new HashMap<>();
            for (Map<String, Integer> output : List.of(byLoop, byStreams, bySpark, byFlink)) {
                output.forEach((id, times) -> written.merge(id, times, Integer::sum));
            }
            Set<String> ids = traffic.messages().stream().map(m -> m.id()).collect(Collectors.toSet());
            long lost = ids.stream().filter(id -> !written.containsKey(id)).count();
            long twice =
                    ids.stream().filter(id -> written.getOrDefault(id, 0) > 1).count();
            long unknown =
                    written.keySet().stream().filter(id -> !ids.contains(id)).count();
            Report.line(String.format(
                    "cross    %-24s %d messages, %d records per topic: written by the consumer loop %d, Kafka"
                            + " Streams %d, Spark %d, Flink %d; lost %d, twice %d; retry after the restarts: %s;"
                            + " Spark job started %d times; %.1f s",
                    "four engines, kill -9",
                    ids.size(),
                    copies,
                    sum(byLoop),
                    sum(byStreams),
                    sum(bySpark),
                    sum(byFlink),
                    lost,
                    twice,
                    retries(List.copyOf(jvms)),
                    List.copyOf(jvms).stream()
                            .filter(j -> name(j).startsWith("spark-"))
                            .count(),
                    (System.nanoTime() - started) / 1e9));
            assertEquals(0, lost, "each message written by one engine at least");
            assertEquals(0, twice, "no message written twice, over the four engines and their restarts");
            assertEquals(0, unknown, "no id that never existed");
            assertTrue(
                    sum(byLoop) > 0 && sum(byStreams) > 0 && sum(bySpark) > 0 && sum(byFlink) > 0,
                    "each engine kept messages");
        } finally {
            threads.shutdownNow();
            List.copyOf(jvms).forEach(ChildJvm::close);
        }
    }

    /**
     * The same messages read by a Flink job deduplicating with its own keyed state (a TTL of 10 minutes) and a Kafka
     * Streams application deduplicating with its own state store, no kill: each remembers only what it read, so each
     * writes every message once and every message is written twice.
     */
    @Test
    void eachEnginesOwnDedup_inTheSameSetting_writesEveryMessageOncePerEngine() throws Exception {
        long started = System.nanoTime();
        Traffic traffic = Traffic.generate(300, PARTITIONS, 61);
        kafka.broker().createTopic("own-flink", PARTITIONS);
        kafka.broker().createTopic("own-streams", PARTITIONS);
        kafka.broker().createTopic("own-flink-out", 1);
        kafka.broker().createTopic("own-streams-out", 1);
        traffic.produce(kafka.broker().bootstrap(), "own-flink");
        traffic.produce(kafka.broker().bootstrap(), "own-streams");
        List<ChildJvm> jvms = new ArrayList<>();
        try {
            ChildJvm flink = track(
                    jvms,
                    flink(
                            "own-flink",
                            List.of(
                                    kafka.broker().bootstrap(),
                                    "own-flink",
                                    "own-flink-out",
                                    kafka.dir().resolve("own-flink-checkpoints").toString(),
                                    NS,
                                    "ownDedup")));
            ChildJvm streams =
                    track(jvms, streams("own-streams", "own-streams", "own-streams-out", "own-state", "ownDedup"));
            awaitFlinkCommitted("own-flink", flink);
            awaitCommitted("own-streams", "own-streams", streams);
        } finally {
            jvms.forEach(ChildJvm::close);
        }

        Map<String, Integer> byFlink = flinkOutput("own-flink-out", traffic);
        Map<String, Integer> byStreams = kafka.broker().committedMessageIds("own-streams-out");
        Map<String, Integer> written = new HashMap<>(byFlink);
        byStreams.forEach((id, times) -> written.merge(id, times, Integer::sum));
        List<String> ids = traffic.messages().stream().map(m -> m.id()).toList();
        long twice = ids.stream().filter(id -> written.getOrDefault(id, 0) == 2).count();
        Report.line(String.format(
                "cross    %-24s %d messages, %d records per topic: written by Flink %d, Kafka Streams %d; written"
                        + " twice %d; %.1f s",
                "each engine's own dedup",
                ids.size(),
                traffic.copies().size(),
                sum(byFlink),
                sum(byStreams),
                twice,
                (System.nanoTime() - started) / 1e9));
        Map<String, Integer> once = ids.stream().collect(Collectors.toMap(id -> id, id -> 1));
        assertEquals(once, byFlink, "Flink's keyed state: each message once in its own output");
        assertEquals(once, byStreams, "Kafka Streams' store: each message once in its own output");
        assertEquals(ids.size(), twice, "every message written twice over the two engines");
    }

    private static Postgres database(String name) throws Exception {
        Postgres db = Postgres.createDatabase(name);
        new AggregateSink(db.url(), AggregateSink.Audit.NONE).createTables();
        Sink.createAuditTable(db);
        return db;
    }

    /** Adds {@code jvm} to those the test stops at its end. */
    private static ChildJvm track(List<ChildJvm> jvms, ChildJvm jvm) {
        jvms.add(jvm);
        return jvm;
    }

    /** {@code kill -9} as soon as the member's status lines so far pass {@code now}. */
    private static void killWhen(ChildJvm jvm, Predicate<List<String>> now) throws InterruptedException {
        long deadline = System.nanoTime() + START.toNanos();
        while (System.nanoTime() < deadline) {
            List<String> lines = Arrays.stream(jvm.output().split("\n"))
                    .filter(l -> STATUS.matcher(l).lookingAt())
                    .toList();
            if (now.test(lines)) {
                assertTrue(jvm.isAlive(), "still running when killed:\n" + jvm.tail());
                jvm.kill9();
                return;
            }
            assertTrue(jvm.isAlive(), "exited before it was killed:\n" + jvm.tail());
            Thread.sleep(20);
        }
        throw new AssertionError("not the moment to kill it after " + START + ":\n" + jvm.tail());
    }

    private static String latest(List<String> lines) {
        return lines.isEmpty() ? "" : lines.get(lines.size() - 1);
    }

    /** The messages claimed {@code new} over these status lines. */
    private static long claimedNew(List<String> lines) {
        return lines.stream().mapToLong(l -> Math.max(0, count(l, "new"))).sum();
    }

    private static ChildJvm member(String name, Class<?> main, List<String> args) throws Exception {
        return ChildJvm.start(
                name,
                kafka.dir().resolve(name + ".log"),
                List.of("-Xmx256m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1"),
                main.getName(),
                args,
                Map.of("DEDUP_URL", kafka.agent().uri().toString()));
    }

    private static ChildJvm streams(String name, String input, String output, String stateDir, String... mode)
            throws Exception {
        List<String> args = new ArrayList<>(List.of(
                kafka.broker().bootstrap(),
                input,
                output,
                input,
                kafka.dir().resolve(stateDir).toString(),
                NS));
        args.addAll(List.of(mode));
        return member(name, StreamsMember.class, args);
    }

    private static ChildJvm spark(String name, List<String> args) throws Exception {
        List<String> jvm = new ArrayList<>(List.of("-Xmx512m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1"));
        jvm.addAll(Arrays.asList(
                System.getProperty("pipeline.spark.jvm.flags", "").trim().split("\\s+")));
        return ChildJvm.start(
                name,
                kafka.dir().resolve(name + ".log"),
                jvm,
                SparkMember.class.getName(),
                args,
                Map.of("DEDUP_URL", kafka.agent().uri().toString()));
    }

    private static ChildJvm flink(String name, List<String> args) throws Exception {
        return FlinkMember.start(
                name,
                kafka.dir().resolve(name + ".log"),
                args,
                Map.of("DEDUP_URL", kafka.agent().uri().toString()));
    }

    private static List<String> with(List<String> args, String more) {
        List<String> all = new ArrayList<>(args);
        all.add(more);
        return all;
    }

    /** The value of {@code key=N} in a member's line, -1 when absent. */
    private static long count(String line, String key) {
        Matcher m = COUNT.matcher(line);
        while (m.find()) {
            if (m.group(1).equals(key)) {
                return Long.parseLong(m.group(2));
            }
        }
        return -1;
    }

    private static int sum(Map<String, Integer> written) {
        return written.values().stream().mapToInt(Integer::intValue).sum();
    }

    /** Per id, how many records of a Flink job's output (values only) a {@code read_committed} reader finds. */
    private static Map<String, Integer> flinkOutput(String topic, Traffic traffic) {
        Map<String, String> idOfValue = traffic.messages().stream()
                .collect(Collectors.toMap(m -> Event.value(m.app(), m.eventMillis(), m.amount()), m -> m.id()));
        Map<String, Integer> seen = kafka.broker().committedCounts(topic, r -> {
            String value = new String(r.value(), StandardCharsets.UTF_8);
            return idOfValue.getOrDefault(value, "unknown value " + value);
        });
        return seen;
    }

    /**
     * Per engine, the verdicts {@code retry} its runs after the kill got: the records the killed run had claimed, read
     * again. The Spark job prints its JVM's totals so far, the others each claim's verdicts.
     */
    private static String retries(List<ChildJvm> jvms) {
        Map<String, Long> retries = new java.util.LinkedHashMap<>();
        for (ChildJvm jvm : jvms) {
            String name = name(jvm);
            String engine = name.substring(0, name.lastIndexOf('-'));
            if (name.endsWith("-1")) {
                continue;
            }
            long totals = 0;
            long claims = 0;
            for (String line : jvm.output().split("\n")) {
                if (line.startsWith("BATCH") || line.startsWith("FAILED")) {
                    totals = Math.max(totals, count(line, "retry"));
                } else if (line.startsWith("VERDICTS") || line.startsWith("FLUSHED") || line.startsWith("CLAIMED")) {
                    claims += Math.max(0, count(line, "retry"));
                }
            }
            retries.merge(engine, totals + claims, Long::sum);
        }
        return retries.entrySet().stream()
                .map(e -> e.getKey() + " " + e.getValue())
                .collect(Collectors.joining(", "));
    }

    private static String name(ChildJvm jvm) {
        return jvm.log().getFileName().toString().replace(".log", "");
    }

    /** Until the consumer loop's sink holds the end of every partition of its topic. */
    private static void awaitLoopCaughtUp(Postgres db, String topic) throws Exception {
        Map<TopicPartition, Long> end = kafka.broker().endOffsets(topic, PARTITIONS);
        Map<TopicPartition, Long> stored = new HashMap<>();
        long deadline = System.nanoTime() + START.toNanos();
        while (System.nanoTime() < deadline) {
            stored.clear();
            try (Connection c = db.connect();
                    Statement s = c.createStatement();
                    ResultSet rs = s.executeQuery("SELECT topic, kafka_partition, next_offset FROM stream_offsets")) {
                while (rs.next()) {
                    stored.put(new TopicPartition(rs.getString(1), rs.getInt(2)), rs.getLong(3));
                }
            }
            if (end.entrySet().stream().allMatch(e -> stored.getOrDefault(e.getKey(), 0L) >= e.getValue())) {
                return;
            }
            Thread.sleep(200);
        }
        throw new AssertionError("the consumer loop's sink stored " + stored + ", its topic ends at " + end);
    }

    /**
     * Until the Kafka Streams application has committed the end of its input and of every topic it commits (its
     * repartition topic).
     */
    private static void awaitCommitted(String applicationId, String input, ChildJvm app) throws Exception {
        Map<TopicPartition, Long> end = kafka.broker().endOffsets(input, PARTITIONS);
        long deadline = System.nanoTime() + START.toNanos();
        while (System.nanoTime() < deadline) {
            if (KafkaBroker.caughtUp(kafka.broker().committed(applicationId), end)
                    && kafka.broker().behind(applicationId).isEmpty()) {
                return;
            }
            Thread.sleep(200);
        }
        throw new AssertionError(applicationId + " committed " + kafka.broker().committed(applicationId)
                + ", its input ends at " + end + ":\n" + app.tail());
    }

    /**
     * Until the Flink job has committed its source's offsets at the end of its input, then two more checkpoints: the
     * sink commits the output of a checkpoint when it completes, before the task hears of the next one.
     */
    private static void awaitFlinkCommitted(String input, ChildJvm flink) throws Exception {
        Map<TopicPartition, Long> end = kafka.broker().endOffsets(input, PARTITIONS);
        String group = "flink-" + input;
        long deadline = System.nanoTime() + START.toNanos();
        while (!KafkaBroker.caughtUp(kafka.broker().committed(group), end) && System.nanoTime() < deadline) {
            Thread.sleep(200);
        }
        assertTrue(
                KafkaBroker.caughtUp(kafka.broker().committed(group), end),
                group + " committed " + kafka.broker().committed(group) + ", its input ends at " + end + ":\n"
                        + flink.tail());
        long last = Arrays.stream(flink.output().split("\n"))
                .filter(l -> l.startsWith("CHECKPOINT"))
                .mapToLong(l -> count(l, "id"))
                .max()
                .orElse(0);
        flink.awaitLine(l -> l.startsWith("CHECKPOINT") && count(l, "id") > last + 1, START);
    }

    /**
     * Until a micro-batch of the Spark job has read every partition of its topic to the end; returns the job's JVM.
     * Spark 4.1.1 fails the first start after a kill mid-batch once it has committed the batch it ran again, with a
     * {@code NullPointerException} in {@code KafkaMicroBatchStream.metrics} (docs/restarts.md): on that failure alone
     * the job is started once more, as a supervisor does.
     */
    private static ChildJvm sparkCaughtUp(ChildJvm spark, List<ChildJvm> jvms, List<String> args, String topic)
            throws Exception {
        Map<TopicPartition, Long> end = kafka.broker().endOffsets(topic, PARTITIONS);
        String expected = end.entrySet().stream()
                .sorted(Map.Entry.comparingByKey((a, b) -> Integer.compare(a.partition(), b.partition())))
                .map(e -> e.getKey().partition() + ":" + e.getValue())
                .collect(Collectors.joining(","));
        Predicate<String> atEnd = l -> l.startsWith("BATCH") && l.endsWith(" end=" + expected);
        if (spark.awaitLineOrExit(atEnd, START).isPresent()) {
            return spark;
        }
        assertTrue(
                spark.output().contains("KafkaMicroBatchStream$.metrics("),
                "the Spark job failed, and not with Spark 4.1.1's NullPointerException:\n" + spark.tail());
        ChildJvm again = track(jvms, spark("spark-3", args));
        again.awaitLine(atEnd, START);
        return again;
    }
}
