package dev.dedup.examples.testing;

import static org.apache.spark.sql.functions.expr;

import dev.dedup.examples.sink.AggregateSink;
import dev.dedup.examples.spark.SparkDedupJob;
import dev.dedup.spark.DedupTransform;
import dev.dedup.spark.VerdictCounts;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.net.URI;
import java.nio.file.Path;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.StringJoiner;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.UnaryOperator;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.streaming.StreamingQuery;
import org.apache.spark.sql.streaming.StreamingQueryException;

/**
 * {@code SparkDedupJob} as a driver in a JVM of its own, on whichever Spark its classpath holds (the pipeline tests
 * run the examples' classes, compiled against Spark 4, on Spark 3.5 so, and kill the driver mid-batch), in local
 * mode as {@link SparkLocal} makes it. The sink is left for the test to check.
 *
 * <p>Arguments: {@code bootstrap topic checkpoint jdbcUrl agentUri... [option...]}, the options:
 *
 * <ul>
 *   <li>{@code failFirstAttempts}: tasks of even partitions fail on their first attempt after claiming ({@link
 *       TaskFailures#failFirstAttemptOfEvenPartitions()});
 *   <li>{@code readAgain}: once the stream has ended, the topic is read again in a batch job and marked ({@link
 *       #readAgain}), its counts in the {@code again} figure;
 *   <li>{@code pauseInTask=N}: the tasks of micro-batch N, once they have claimed their records, print {@link
 *       #PAUSED} and wait to be killed ({@link TaskFailures#pauseAfterClaiming(long)});
 *   <li>{@code pauseInSink=N}: micro-batch N's sink transaction, its rows written, prints {@link #PAUSED} with the
 *       verdicts so far and waits, open, to be killed.
 * </ul>
 *
 * <p>Prints {@link #RESULT} and the key=value pairs of what it saw (Spark and Scala versions, whether the query
 * ended by itself, the verdicts of successful task attempts, micro-batches, the offsets the query consumed, the
 * JVM's CPU time), then what {@link SparkDiagnostics} recorded; exits 0 when the query ended by itself within
 * {@link #TIMEOUT}, 1 otherwise (a query that failed prints its exception first).
 */
public final class SparkJobMain {

    /** The start of the line that carries the run's figures. */
    public static final String RESULT = "RESULT";

    /** The start of the line a paused batch prints before it waits to be killed. */
    public static final String PAUSED = "PAUSED";

    static final Duration TIMEOUT = Duration.ofSeconds(180);

    public static void main(String[] args) throws Exception {
        List<String> positional = new ArrayList<>();
        List<URI> agents = new ArrayList<>();
        boolean failFirstAttempts = false;
        boolean readAgain = false;
        long pauseInTask = -1;
        long pauseInSink = -1;
        for (String a : args) {
            if (positional.size() < 4) {
                positional.add(a);
            } else if (a.contains("://")) {
                agents.add(URI.create(a));
            } else if (a.equals("failFirstAttempts")) {
                failFirstAttempts = true;
            } else if (a.equals("readAgain")) {
                readAgain = true;
            } else if (a.startsWith("pauseInTask=")) {
                pauseInTask = Long.parseLong(a.substring("pauseInTask=".length()));
            } else if (a.startsWith("pauseInSink=")) {
                pauseInSink = Long.parseLong(a.substring("pauseInSink=".length()));
            } else {
                throw new IllegalArgumentException("unknown option " + a);
            }
        }
        if (positional.size() < 4 || agents.isEmpty()) {
            System.err.println("usage: SparkJobMain bootstrap topic checkpoint jdbcUrl agentUri... [failFirstAttempts]"
                    + " [readAgain] [pauseInTask=N] [pauseInSink=N]");
            System.exit(2);
        }
        String bootstrap = positional.get(0);
        String topic = positional.get(1);
        SparkSession spark = SparkLocal.start("SparkJobMain");
        boolean ended = false;
        try (SparkDiagnostics diagnostics = new SparkDiagnostics(spark, topic)) {
            AtomicReference<SparkDedupJob> running = new AtomicReference<>();
            AggregateSink.Audit audit = pauseInSink < 0
                    ? Sink.AUDIT
                    : pausingInTransaction(pauseInSink, () -> verdictsSoFar(running.get()));
            SparkDedupJob job = new SparkDedupJob(
                    SparkLocal.jobOptions(bootstrap, topic, positional.get(2), topic, agents, "clicks", 1_200),
                    new AggregateSink(positional.get(3), audit));
            running.set(job);
            UnaryOperator<Dataset<Row>> faults = UnaryOperator.identity();
            if (failFirstAttempts) {
                faults = TaskFailures.failFirstAttemptOfEvenPartitions();
            }
            if (pauseInTask >= 0) {
                UnaryOperator<Dataset<Row>> before = faults;
                UnaryOperator<Dataset<Row>> pause = TaskFailures.pauseAfterClaiming(pauseInTask);
                faults = kept -> pause.apply(before.apply(kept));
            }
            StreamingQuery q = job.start(spark, diagnostics.observe(faults));
            try {
                ended = q.awaitTermination(TIMEOUT.toMillis());
            } catch (StreamingQueryException e) {
                e.printStackTrace(); // the query failed: RESULT says ended=false
            }
            if (!ended) {
                q.stop();
            }
            List<SparkDiagnostics.Batch> batches = SparkDiagnostics.batches(q);
            StringJoiner consumed = new StringJoiner(",");
            for (Map.Entry<Integer, Long> e :
                    SparkDiagnostics.consumedUpTo(batches).entrySet()) {
                consumed.add(e.getKey() + ":" + e.getValue());
            }
            String again = ended && readAgain ? readAgain(spark, bootstrap, topic, agents) : "";
            System.out.println(RESULT + " spark=" + spark.version()
                    + " scala=" + scala.util.Properties.versionNumberString()
                    + " ended=" + ended
                    + " " + verdicts(verdictsSoFar(job))
                    + " batches=" + batches.size()
                    + " consumed=" + consumed
                    + " cpu=" + String.format("%.1fs", cpuSeconds())
                    + " again=" + again);
            System.out.print(diagnostics.describe(batches));
        } finally {
            spark.stop();
        }
        System.exit(ended ? 0 : 1);
    }

    /**
     * Starts this class as a driver in a JVM of its own on {@code classpath} (small heap, C1 alone, one GC thread:
     * less CPU on a small machine; the flags Spark needs on Java 17 from {@code pipeline.spark.jvm.flags}), its
     * output appended to {@code log}.
     */
    public static ChildJvm start(String name, Path log, String classpath, List<String> args) throws IOException {
        List<String> cmd = new ArrayList<>();
        cmd.add(ChildJvm.javaBin());
        cmd.addAll(List.of("-Xmx768m", "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC"));
        String flags = System.getProperty("pipeline.spark.jvm.flags", "").trim();
        if (!flags.isEmpty()) {
            cmd.addAll(Arrays.asList(flags.split("\\s+")));
        }
        cmd.add("-cp");
        cmd.add(classpath);
        cmd.add(SparkJobMain.class.getName());
        cmd.addAll(args);
        return ChildJvm.exec(name, log, cmd);
    }

    /**
     * The key=value pairs of the last line of {@code output} that starts with {@code marker} ({@link #RESULT},
     * {@link #PAUSED}); empty when there is none.
     */
    public static Map<String, String> fields(String output, String marker) {
        Map<String, String> out = new HashMap<>();
        for (String line : output.split("\n")) {
            if (line.startsWith(marker + " ")) {
                out.clear();
                for (String pair : line.substring(marker.length() + 1).split(" ")) {
                    int eq = pair.indexOf('=');
                    if (eq > 0) {
                        out.put(pair.substring(0, eq), pair.substring(eq + 1));
                    }
                }
            }
        }
        return out;
    }

    /** The {@code consumed} figure ({@code 0:1140,1:1138,...}) as partition → next offset. */
    /**
     * Adds to {@code problems} what keeps a run from having read its whole topic: the topic holding other than the
     * {@code written} records, or the offsets the query consumed ({@code consumed} of its {@link #RESULT} line)
     * short of the topic's end. Returns the records the topic holds.
     */
    public static long readToTheEnd(
            KafkaBroker broker,
            String topic,
            int partitions,
            int written,
            Map<String, String> result,
            List<String> problems)
            throws Exception {
        Map<Integer, Long> end = new TreeMap<>();
        broker.endOffsets(topic, partitions).forEach((tp, o) -> end.put(tp.partition(), o));
        long held = end.values().stream().mapToLong(Long::longValue).sum();
        if (held != written) {
            problems.add("the topic holds " + held + " records, the test wrote " + written);
        }
        Map<Integer, Long> consumed = consumed(result.getOrDefault("consumed", ""));
        if (!consumed.equals(end)) {
            problems.add("the query consumed up to " + consumed + ", the topic ends at " + end);
        }
        return held;
    }

    public static Map<Integer, Long> consumed(String pairs) {
        Map<Integer, Long> out = new TreeMap<>();
        for (String pair : pairs.split(",")) {
            int colon = pair.indexOf(':');
            if (colon > 0) {
                out.put(Integer.parseInt(pair.substring(0, colon)), Long.parseLong(pair.substring(colon + 1)));
            }
        }
        return out;
    }

    /** The job's verdicts, null before its first micro-batch made the counters. */
    private static VerdictCounts verdictsSoFar(SparkDedupJob job) {
        try {
            return job.verdicts();
        } catch (IllegalStateException e) {
            return null;
        }
    }

    /** The job's verdicts so far as {@code new=F retry=T duplicate=D}, zeros before its first micro-batch. */
    static String verdicts(SparkDedupJob job) {
        return verdicts(verdictsSoFar(job));
    }

    private static String verdicts(VerdictCounts v) {
        return v == null
                ? "new=0 retry=0 duplicate=0"
                : "new=" + v.fresh() + " retry=" + v.retried() + " duplicate=" + v.duplicates();
    }

    /**
     * {@link Sink#AUDIT}, and in the transaction of micro-batch {@code batch} (the batch id the sink has just set in
     * it), once every row is written: prints {@link #PAUSED} with the verdicts so far and waits, the transaction
     * open, to be killed.
     */
    static AggregateSink.Audit pausingInTransaction(long batch, java.util.function.Supplier<VerdictCounts> verdicts) {
        return (c, ids) -> {
            Sink.AUDIT.applied(c, ids);
            try (Statement s = c.createStatement();
                    ResultSet rs = s.executeQuery("SELECT max(last_batch) FROM sink_batches")) {
                rs.next();
                if (rs.getLong(1) != batch) {
                    return;
                }
            }
            System.out.println(
                    PAUSED + " batch=" + batch + " at=sink ids=" + ids.size() + " " + verdicts(verdicts.get()));
            System.out.flush();
            try {
                Thread.sleep(Long.MAX_VALUE);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("paused in the sink's transaction of batch " + batch, e);
            }
        };
    }

    /**
     * The whole topic read again in a batch job and marked, not dropped, in the same namespace, by the transform's
     * other paths: an id expression (a helper column), {@code withVerdicts}. Without event times, as the stream
     * claimed (the Redis tier keeps claims with and without them apart). Every record the
     * stream kept is its owner's own claim ({@code retry}); every other copy is {@code duplicate}. Returns {@code
     * new:N,retry:N,duplicate:N}.
     */
    static String readAgain(SparkSession spark, String bootstrap, String topic, List<URI> agents) {
        DedupTransform marking = DedupTransform.builder("clicks")
                .id(expr("CAST(element_at(filter(headers, h -> h.key = 'message-id'), -1).value AS STRING)"))
                .agents(agents)
                .build();
        Dataset<Row> topicRows = spark.read()
                .format("kafka")
                .option("kafka.bootstrap.servers", bootstrap)
                .option("subscribe", topic)
                .option("includeHeaders", "true")
                .load();
        Map<String, Long> counts = new TreeMap<>(Map.of("new", 0L, "retry", 0L, "duplicate", 0L));
        for (Row r : marking.withVerdicts(topicRows)
                .groupBy(DedupTransform.DEFAULT_VERDICT_COLUMN)
                .count()
                .collectAsList()) {
            counts.put(r.getString(0), r.getLong(1));
        }
        return "new:" + counts.get("new") + ",retry:" + counts.get("retry") + ",duplicate:" + counts.get("duplicate");
    }

    /** This JVM's CPU time so far, all threads. */
    static double cpuSeconds() {
        return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
                        .getProcessCpuTime()
                / 1e9;
    }

    private SparkJobMain() {}
}
