package dev.dedup.examples.spark;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.count;
import static org.apache.spark.sql.functions.lit;
import static org.apache.spark.sql.functions.pmod;
import static org.apache.spark.sql.functions.sum;

import dev.dedup.client.Claims;
import dev.dedup.examples.kafka.MessageIds;
import dev.dedup.examples.sink.AggregateSink;
import java.lang.reflect.InvocationTargetException;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeoutException;
import java.util.function.UnaryOperator;
import org.apache.spark.api.java.function.VoidFunction2;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Encoders;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.streaming.DataStreamWriter;
import org.apache.spark.sql.streaming.StreamingQuery;
import org.apache.spark.sql.streaming.Trigger;
import org.apache.spark.storage.StorageLevel;

/**
 * Tapjoy's pipeline with the agent: Kafka → Spark (micro-batches) → claim → drop duplicates → aggregate → PostgreSQL.
 *
 * <pre>{@code
 * SparkDedupJob job = new SparkDedupJob(options, new AggregateSink(jdbcUrl, Audit.NONE));
 * StreamingQuery q = job.start(spark, UnaryOperator.identity());
 * }</pre>
 *
 * Per micro-batch ({@code foreachBatch}): every partition's records are claimed on the executor ({@link
 * ClaimPartition}), the kept rows are aggregated by app and minute of event time, and the aggregates are written
 * with the batch id in one transaction ({@link AggregateSink#writeAggregates}), so a batch Spark runs again is not
 * applied twice.
 */
public final class SparkDedupJob {

    /**
     * @param agents    empty: the executor's own agent, as its pod template names it ({@code DEDUP_URL},
     *                  {@code DEDUP_TOKEN}); agent URIs only to play several nodes in one JVM
     * @param idHeader  the record header the producer puts the message id in ({@code message-id} by default;
     *                  never the record key, a partitioning key)
     * @param chunk     records per claim request
     * @param maxOffsetsPerTrigger records per micro-batch
     */
    public record Options(
            String bootstrap,
            String topic,
            String checkpoint,
            String queryName,
            List<String> agents,
            String namespace,
            String idHeader,
            int chunk,
            long maxOffsetsPerTrigger,
            Duration patience) {
        public Options(
                String bootstrap,
                String topic,
                String checkpoint,
                String queryName,
                List<String> agents,
                String namespace) {
            this(
                    bootstrap,
                    topic,
                    checkpoint,
                    queryName,
                    agents,
                    namespace,
                    MessageIds.DEFAULT_HEADER,
                    500,
                    1_000,
                    Claims.DEFAULT_PATIENCE);
        }

        /** Claims at the executor's own agent, the one its environment names. */
        public Options(String bootstrap, String topic, String checkpoint, String queryName, String namespace) {
            this(bootstrap, topic, checkpoint, queryName, List.of(), namespace);
        }
    }

    private final Options options;
    private final AggregateSink sink;
    private ClaimPartition.Verdicts verdicts;

    public SparkDedupJob(Options options, AggregateSink sink) {
        this.options = options;
        this.sink = sink;
    }

    /**
     * Starts the query over what the topic holds now ({@code Trigger.AvailableNow}, in micro-batches of
     * {@code maxOffsetsPerTrigger}); a long-running job would use {@code Trigger.ProcessingTime}.
     *
     * @param process the per-record work between the claim and the aggregation (enrichment, filters); it runs in
     *                the claiming task, so a failure there makes Spark retry the task, which gets {@code RETRY}
     */
    public StreamingQuery start(SparkSession spark, UnaryOperator<Dataset<Row>> process) throws TimeoutException {
        verdicts = ClaimPartition.Verdicts.register(spark.sparkContext());
        ClaimPartition claim = new ClaimPartition(
                options.agents(),
                options.namespace(),
                options.idHeader(),
                options.chunk(),
                options.patience(),
                verdicts);
        VoidFunction2<Dataset<Row>, Long> perBatch = (batch, batchId) -> {
            Dataset<Row> kept = process.apply(batch.mapPartitions(claim, Encoders.row(ClaimPartition.KEPT)))
                    .persist(StorageLevel.MEMORY_ONLY()); // claimed once per successful task, read twice below
            try {
                writeBatch(kept, options.queryName(), batchId, sink);
            } finally {
                kept.unpersist();
            }
        };
        DataStreamWriter<Row> writer = spark.readStream()
                .format("kafka")
                .option("kafka.bootstrap.servers", options.bootstrap())
                .option("subscribe", options.topic())
                .option("includeHeaders", "true") // the message id is a header
                .option("startingOffsets", "earliest")
                .option("maxOffsetsPerTrigger", options.maxOffsetsPerTrigger())
                .load()
                .writeStream()
                .queryName(options.queryName());
        return option(writer, "checkpointLocation", options.checkpoint())
                .trigger(Trigger.AvailableNow())
                .foreachBatch(perBatch)
                .start();
    }

    /**
     * {@code writer.option(key, value)} in a form that links on Spark 3.5 and 4.x alike. Spark 4 inherits
     * {@code DataStreamWriter.option(String, String)} from a generic parent type, so a call compiled against it returns
     * {@code Object}, one compiled against 3.5 returns {@code DataStreamWriter}, and neither links on the other (its
     * overloads for long, boolean and double link on both). Found by name and parameters, it is the same method.
     */
    @SuppressWarnings("unchecked")
    static DataStreamWriter<Row> option(DataStreamWriter<Row> writer, String key, String value) {
        try {
            return (DataStreamWriter<Row>) DataStreamWriter.class
                    .getMethod("option", String.class, String.class)
                    .invoke(writer, key, value);
        } catch (InvocationTargetException e) {
            throw e.getCause() instanceof RuntimeException r
                    ? r
                    : new IllegalStateException("DataStreamWriter.option(" + key + ")", e.getCause());
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("this Spark has no DataStreamWriter.option(String, String)", e);
        }
    }

    /** The verdicts of successful task attempts so far (after {@link #start}). */
    public ClaimPartition.Verdicts verdicts() {
        return verdicts;
    }

    /**
     * Aggregates the kept rows ({@link ClaimPartition#KEPT}: {@code id, app, event_ms, amount, ...}) by app and minute
     * of event time on the executors, and writes them on the driver in one transaction with the batch id.
     */
    public static void writeBatch(Dataset<Row> kept, String queryName, long batchId, AggregateSink sink)
            throws SQLException {
        List<AggregateSink.Aggregate> rows = new ArrayList<>();
        for (Row r : kept.withColumn("minute", col("event_ms").minus(pmod(col("event_ms"), lit(60_000L))))
                .groupBy("app", "minute")
                .agg(count("*").as("events"), sum("amount").as("amount"))
                .collectAsList()) {
            rows.add(new AggregateSink.Aggregate(r.getString(0), r.getLong(1), r.getLong(2), r.getLong(3)));
        }
        List<String> ids =
                sink.audited() ? kept.select("id").as(Encoders.STRING()).collectAsList() : List.of();
        sink.writeAggregates(queryName, batchId, rows, ids);
    }
}
