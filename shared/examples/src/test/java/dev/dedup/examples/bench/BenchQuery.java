package dev.dedup.examples.bench;

import dev.dedup.examples.sink.AggregateSink;
import dev.dedup.examples.spark.SparkDedupJob;
import dev.dedup.examples.testing.Sink;
import dev.dedup.examples.testing.SparkLocal;
import dev.dedup.spark.DedupTransform;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryUsage;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;
import org.apache.spark.api.java.function.VoidFunction2;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.streaming.DataStreamWriter;
import org.apache.spark.sql.streaming.StreamingQuery;
import org.apache.spark.sql.streaming.StreamingQueryListener;
import org.apache.spark.sql.streaming.Trigger;
import org.apache.spark.storage.StorageLevel;

/**
 * One side's Spark job in a JVM of its own, in local mode as {@link SparkLocal} makes it, running until it is stopped
 * (SIGTERM, or {@code kill -9} for the recovery measurement). Every micro-batch's {@code StreamingQueryProgress} is
 * appended as one JSON line to the progress file, with the driver's heap after the batch and the wall time.
 *
 * <p>Arguments, {@code key=value}: {@code side} ({@link BenchOptions.Side} label), {@code bootstrap}, {@code topic},
 * {@code checkpoint}, {@code jdbc}, {@code progress} (a file), {@code window} (seconds), {@code trigger} (ms),
 * {@code max-offsets} (records per micro-batch at most) and, for our side, {@code agents} (comma-separated URIs).
 */
public final class BenchQuery {

    /**
     * Spark's settings for large deduplication state, as its guide gives them ("RocksDB State Store
     * Implementation"): RocksDB instead of the JVM heap, commits that upload a changelog instead of a snapshot, and
     * RocksDB's memory bounded per executor. {@code trackTotalNumberOfRows} stays on (its default): the benchmark
     * reports {@code numRowsTotal}, at the cost of a read before each write.
     */
    static final Map<String, String> ROCKSDB = Map.of(
            "spark.sql.streaming.stateStore.providerClass",
            "org.apache.spark.sql.execution.streaming.state.RocksDBStateStoreProvider",
            "spark.sql.streaming.stateStore.rocksdb.changelogCheckpointing.enabled",
            "true",
            "spark.sql.streaming.stateStore.rocksdb.boundedMemoryUsage",
            "true");

    public static void main(String[] args) throws Exception {
        Map<String, String> a = new HashMap<>();
        for (String arg : args) {
            int eq = arg.indexOf('=');
            a.put(arg.substring(0, eq), arg.substring(eq + 1));
        }
        BenchOptions.Side side = BenchOptions.Side.of(a.get("side"));
        SparkSession spark = SparkLocal.start("bench-" + side.label);
        Path progress = Path.of(a.get("progress"));
        spark.streams().addListener(new ProgressWriter(progress));
        Trigger trigger = Trigger.ProcessingTime(Long.parseLong(a.get("trigger")));
        long maxOffsets = Long.parseLong(a.get("max-offsets"));
        AggregateSink sink = new AggregateSink(a.get("jdbc"), Sink.AUDIT);
        StreamingQuery q;
        if (side.spark()) {
            ROCKSDB.forEach((k, v) -> spark.conf().set(k, v));
            q = startSparkOwn(spark, side, a, trigger, maxOffsets, sink);
        } else {
            List<URI> agents =
                    Arrays.stream(a.get("agents").split(",")).map(URI::create).toList();
            SparkDedupJob job = new SparkDedupJob(
                    new SparkDedupJob.Options(
                            a.get("bootstrap"),
                            a.get("topic"),
                            a.get("checkpoint"),
                            side.label,
                            agents,
                            "clicks",
                            "message-id",
                            DedupTransform.DEFAULT_CHUNK,
                            maxOffsets,
                            DedupTransform.DEFAULT_PATIENCE),
                    sink);
            q = job.start(spark, UnaryOperator.identity(), trigger);
        }
        q.awaitTermination();
    }

    /**
     * Spark's own deduplication at its best: the event time from the message (late copies carry their original's),
     * a watermark delay of the whole window, past the longest delay of a copy or of a late original, so that no
     * original is dropped as late and every copy meets its first copy's state.
     */
    static StreamingQuery startSparkOwn(
            SparkSession spark,
            BenchOptions.Side side,
            Map<String, String> a,
            Trigger trigger,
            long maxOffsets,
            AggregateSink sink)
            throws Exception {
        String queryName = side.label;
        VoidFunction2<Dataset<Row>, Long> perBatch = (batch, batchId) -> {
            Dataset<Row> kept = batch.persist(StorageLevel.MEMORY_ONLY()); // aggregated and audited: read twice
            try {
                SparkDedupJob.writeBatch(kept, queryName, batchId, sink);
            } finally {
                kept.unpersist();
            }
        };
        DataStreamWriter<Row> writer = spark.readStream()
                .format("kafka")
                .option("kafka.bootstrap.servers", a.get("bootstrap"))
                .option("subscribe", a.get("topic"))
                .option("startingOffsets", "earliest")
                .option("maxOffsetsPerTrigger", maxOffsets)
                .option("includeHeaders", "true")
                .load()
                .selectExpr(
                        "CAST(element_at(filter(headers, h -> h.key = 'message-id'), -1).value AS STRING) AS id",
                        "split(CAST(value AS STRING), ',') AS f")
                .selectExpr(
                        "id",
                        "f[0] AS app",
                        "CAST(f[1] AS BIGINT) AS event_ms",
                        "CAST(f[2] AS BIGINT) AS amount",
                        "timestamp_millis(CAST(f[1] AS BIGINT)) AS event_time")
                .withWatermark("event_time", a.get("window") + " seconds")
                .dropDuplicatesWithinWatermark("id")
                .writeStream()
                .queryName(queryName);
        return SparkDedupJob.option(writer, "checkpointLocation", a.get("checkpoint")) // links on 3.5 and 4
                .trigger(trigger)
                .foreachBatch(perBatch)
                .start();
    }

    /**
     * Appends {@code {"at": ms, "started": true}} when the query starts, then
     * {@code {"at": ms, "heap_used": bytes, "progress": {...}}} per micro-batch.
     */
    static final class ProgressWriter extends StreamingQueryListener {
        private final Path file;

        ProgressWriter(Path file) {
            this.file = file;
        }

        @Override
        public void onQueryStarted(QueryStartedEvent event) {
            append("{\"at\":" + System.currentTimeMillis() + ",\"started\":true}\n");
        }

        @Override
        public void onQueryProgress(QueryProgressEvent event) {
            MemoryUsage heap = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage();
            append("{\"at\":" + System.currentTimeMillis() + ",\"heap_used\":" + heap.getUsed()
                    + ",\"heap_committed\":" + heap.getCommitted() + ",\"progress\":"
                    + event.progress().json()
                    + "}\n");
        }

        private void append(String line) {
            try {
                Files.writeString(
                        file, line, StandardCharsets.UTF_8, StandardOpenOption.CREATE, StandardOpenOption.APPEND);
            } catch (IOException e) {
                throw new IllegalStateException("progress not written to " + file, e);
            }
        }

        @Override
        public void onQueryTerminated(QueryTerminatedEvent event) {}
    }

    private BenchQuery() {}
}
