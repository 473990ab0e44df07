package dev.dedup.examples.testing;

import dev.dedup.examples.spark.SparkDedupJob;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import org.apache.spark.sql.SparkSession;

/**
 * Spark in local mode inside the test JVM: two threads ({@code local[2,4]}: up to 4 attempts per task, so that a task
 * failure is retried as on a cluster), no UI, loopback only, two shuffle partitions. Also used by the child JVMs
 * that run a job on Spark 3.5, whose classpath has no JUnit: the extension for a test class is {@link SparkFixture}.
 */
public final class SparkLocal {

    public static SparkSession start(String app) {
        return SparkSession.builder()
                .master("local[2,4]")
                .appName(app)
                .config("spark.ui.enabled", "false")
                .config("spark.driver.host", "127.0.0.1")
                .config("spark.driver.bindAddress", "127.0.0.1")
                .config("spark.sql.shuffle.partitions", "2")
                .config("spark.sql.adaptive.enabled", "false")
                .config("spark.sql.streaming.metricsEnabled", "false")
                .getOrCreate();
    }

    /**
     * The example job's options as the tests run it: ids in the {@code message-id} header, claims of 250 records, 60 s
     * of patience; {@code agents} empty for the executor's own agent ({@code DEDUP_URL}).
     */
    public static SparkDedupJob.Options jobOptions(
            String bootstrap,
            String topic,
            String checkpoint,
            String queryName,
            List<URI> agents,
            String namespace,
            long maxOffsetsPerTrigger) {
        return new SparkDedupJob.Options(
                bootstrap,
                topic,
                checkpoint,
                queryName,
                agents,
                namespace,
                "message-id",
                250,
                maxOffsetsPerTrigger,
                Duration.ofSeconds(60));
    }

    private SparkLocal() {}
}
