package dev.dedup.examples.testing;

import static org.apache.spark.sql.functions.expr;

import dev.dedup.examples.sink.AggregateSink;
import dev.dedup.examples.spark.SparkDedupJob;
import dev.dedup.spark.DedupTransform;
import dev.dedup.spark.VerdictCounts;
import java.lang.management.ManagementFactory;
import java.net.URI;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.StringJoiner;
import java.util.TreeMap;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.streaming.StreamingQuery;

/**
 * {@code SparkDedupJob} in a JVM of its own, on whichever Spark its classpath holds (the pipeline test runs the
 * examples' classes, compiled against Spark 4, on Spark 3.5 so), in local mode as {@link SparkLocal} makes it, the
 * tasks of even partitions failing on their first attempt after claiming ({@link TaskFailures}). The sink is left for
 * the test to check.
 *
 * <p>Arguments: {@code bootstrap topic checkpoint jdbcUrl agentUri...}. Prints {@link #RESULT} and the key=value pairs
 * of what it saw (Spark and Scala versions, the verdicts of successful task attempts, micro-batches, the offsets the
 * query consumed, the JVM's CPU time), then what {@link SparkDiagnostics} recorded; exits 0 when the query ended by itself within
 * {@link #TIMEOUT}, 1 otherwise.
 */
public final class SparkJobMain {

    /** The start of the line that carries the run's figures. */
    public static final String RESULT = "RESULT";

    static final Duration TIMEOUT = Duration.ofSeconds(180);

    public static void main(String[] args) throws Exception {
        if (args.length < 5) {
            System.err.println("usage: SparkJobMain bootstrap topic checkpoint jdbcUrl agentUri...");
            System.exit(2);
        }
        String topic = args[1];
        List<URI> agents = Arrays.asList(args).subList(4, args.length).stream()
                .map(URI::create)
                .toList();
        SparkSession spark = SparkLocal.start("SparkJobMain");
        boolean ended = false;
        try (SparkDiagnostics diagnostics = new SparkDiagnostics(spark, topic)) {
            SparkDedupJob job = new SparkDedupJob(
                    new SparkDedupJob.Options(
                            args[0],
                            topic,
                            args[2],
                            topic,
                            agents,
                            "clicks",
                            "message-id",
                            250,
                            1_200,
                            Duration.ofSeconds(60)),
                    new AggregateSink(args[3], Sink.AUDIT));
            StreamingQuery q = job.start(spark, diagnostics.observe(TaskFailures.failFirstAttemptOfEvenPartitions()));
            ended = q.awaitTermination(TIMEOUT.toMillis());
            if (!ended) {
                q.stop();
            }
            if (q.exception().isDefined()) {
                q.exception().get().printStackTrace();
                ended = false;
            }
            List<SparkDiagnostics.Batch> batches = SparkDiagnostics.batches(q);
            VerdictCounts v = job.verdicts();
            StringJoiner consumed = new StringJoiner(",");
            for (Map.Entry<Integer, Long> e :
                    SparkDiagnostics.consumedUpTo(batches).entrySet()) {
                consumed.add(e.getKey() + ":" + e.getValue());
            }
            String again = ended ? readAgain(spark, args[0], topic, agents) : "";
            System.out.println(RESULT + " spark=" + spark.version()
                    + " scala=" + scala.util.Properties.versionNumberString()
                    + " ended=" + ended
                    + " new=" + v.fresh()
                    + " retry=" + v.retried()
                    + " duplicate=" + v.duplicates()
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
