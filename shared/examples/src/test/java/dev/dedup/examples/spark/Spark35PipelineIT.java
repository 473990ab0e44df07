package dev.dedup.examples.spark;

import dev.dedup.examples.testing.ChildJvm;
import dev.dedup.examples.testing.KafkaBroker;
import dev.dedup.examples.testing.PipelineRun;
import dev.dedup.examples.testing.Postgres;
import dev.dedup.examples.testing.Report;
import dev.dedup.examples.testing.Services;
import dev.dedup.examples.testing.Sink;
import dev.dedup.examples.testing.SparkJobMain;
import dev.dedup.examples.testing.Stack;
import dev.dedup.examples.testing.Traffic;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@link SparkDedupJob}, compiled against Spark 4, on Spark 3.5: the module's classes run in a JVM of their own
 * ({@link SparkJobMain}) on the classpath of a Spark 3.5 application for Scala 2.12 or 2.13
 * ({@code shared/examples/spark-3.5/scala-*}: Spark, its Kafka source, the client, the JDBC driver, resolved as
 * Spark's POMs say), in local mode, against a KRaft broker, the agent jar (embedded store) and PostgreSQL as {@link
 * SparkPipelineIT} runs them. Tasks of even partitions fail on their first attempt after claiming; the retried tasks
 * get retry, and the sink ends exact: 0 lost, 0 counted twice.
 */
class Spark35PipelineIT {

    @RegisterExtension
    static final Services services = Services.kafka("spark35-pipeline");

    @ParameterizedTest
    @ValueSource(strings = {"2.12", "2.13"})
    void taskFailingAfterClaimingIsRetriedAndGetsRetryOnSpark35(String scala) throws Exception {
        String name = "spark-3.5-scala-" + scala;
        KafkaBroker broker = services.broker();
        try (PipelineRun run = new PipelineRun(
                broker,
                services.dir().resolve(name),
                name,
                Stack.Store.EMBEDDED,
                Traffic.generate(SparkPipelineIT.UNIQUE, SparkPipelineIT.PARTITIONS, name.hashCode()),
                "spark35-" + scala.replace('.', '-'),
                true,
                Duration.ZERO)) {
            String topic = run.topic;
            Traffic traffic = run.traffic;
            Postgres db = run.db;
            List<String> args = new ArrayList<>(List.of(
                    broker.bootstrap(), topic, run.dir.resolve("checkpoint").toString(), db.url()));
            run.stack.agents().forEach(a -> args.add(a.uri().toString()));
            args.addAll(List.of("failFirstAttempts", "readAgain"));
            Path log = Path.of("target", name + ".log"); // kept after the run: Spark's own log of the job
            Files.deleteIfExists(log);
            int exit;
            try (ChildJvm job = SparkJobMain.start(name, log, ChildJvm.classpathOnSpark35(scala), args)) {
                exit = job.awaitExit(Duration.ofSeconds(300));
            }
            String output = Files.readString(log);
            Map<String, String> result = SparkJobMain.fields(output, SparkJobMain.RESULT);

            List<String> problems = new ArrayList<>();
            if (exit != 0 || result.isEmpty()) {
                problems.add("the job exited with " + exit + (result.isEmpty() ? " without a result" : ""));
            }
            if (!result.getOrDefault("spark", "").startsWith("3.5.")) {
                problems.add("ran on Spark " + result.get("spark") + ", not 3.5");
            }
            if (!result.getOrDefault("scala", "").startsWith(scala + ".")) {
                problems.add("ran on Scala " + result.get("scala") + ", not " + scala);
            }
            long held = SparkJobMain.readToTheEnd(
                    broker, topic, traffic.partitions(), traffic.copies().size(), result, problems);
            long fresh = Long.parseLong(result.getOrDefault("new", "0"));
            long retried = Long.parseLong(result.getOrDefault("retry", "0"));
            long duplicates = Long.parseLong(result.getOrDefault("duplicate", "0"));
            if (fresh + retried + duplicates < held) {
                problems.add("successful tasks claimed " + (fresh + retried + duplicates) + " records of " + held);
            }
            if (retried == 0) {
                problems.add("no retried task answered retry");
            }
            String again = "new:0,retry:" + traffic.messages().size() + ",duplicate:"
                    + (traffic.copies().size() - traffic.messages().size());
            if (!again.equals(result.get("again"))) {
                problems.add("the topic read again and marked (withVerdicts, an id expression) gave "
                        + result.get("again") + ", not " + again);
            }
            Sink.Check check = Sink.check(db, traffic);
            if (!check.exact()) {
                problems.add(check.toString());
            }
            if (!problems.isEmpty()) {
                String explained = String.join("; ", problems) + "\nsink writes: " + Sink.writes(db) + "\n" + output;
                throw run.failed(String.join("; ", problems), explained);
            }
            Report.line(String.format(
                    "spark    %-24s Spark %s, Scala %s; %s: %s; verdicts: new %d, retry %d, duplicate %d;"
                            + " %s batches; %.1f s (the job's JVM: %s CPU)",
                    name,
                    result.get("spark"),
                    result.get("scala"),
                    run.copies(),
                    check,
                    fresh,
                    retried,
                    duplicates,
                    result.get("batches"),
                    run.seconds(),
                    result.get("cpu")));
        }
    }
}
