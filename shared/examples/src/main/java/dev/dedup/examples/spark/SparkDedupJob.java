package dev.dedup.examples.spark;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.count;
import static org.apache.spark.sql.functions.lit;
import static org.apache.spark.sql.functions.pmod;
import static org.apache.spark.sql.functions.sum;

import dev.dedup.examples.sink.AggregateSink;
import dev.dedup.spark.DedupTransform;
import dev.dedup.spark.VerdictCounts;
import java.lang.reflect.InvocationTargetException;
import java.net.URI;
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
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.storage.StorageLevel;

/**
 * Tapjoy's pipeline with the agent: Kafka → Spark (micro-batches) → drop duplicates ({@link DedupTransform}) → the job's
 * own parsing and aggregation → PostgreSQL.
 *
 * <pre>{@code
 * SparkDedupJob job = new SparkDedupJob(options, new AggregateSink(jdbcUrl, Audit.NONE));
 * StreamingQuery q = job.start(spark, UnaryOperator.identity());
 * }</pre>
 *
 * Per micro-batch ({@code foreachBatch}): the batch's Kafka rows go through the transform, which claims them on the
 * executors and keeps those answered {@code new} or {@code retry}; the job parses the kept values into its events,
 * aggregates them by app and minute of event time, and writes the aggregates with the batch id in one transaction
 * ({@link AggregateSink#writeAggregates}), so a batch Spark runs again is not applied twice. Of the dedup library the
 * job uses the builder and one call; the rest is the job's own.
 */
public final class SparkDedupJob {

    /** The job's events: the message, and where this copy sat. */
    public static final StructType EVENTS = new StructType()
            .add("id", DataTypes.StringType, true)
            .add("app", DataTypes.StringType, true)
            .add("event_ms", DataTypes.LongType, true)
            .add("amount", DataTypes.LongType, true)
            .add("partition", DataTypes.IntegerType, false)
            .add("offset", DataTypes.LongType, false);

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
            List<URI> agents,
            String namespace,
            String idHeader,
            int chunk,
            long maxOffsetsPerTrigger,
            Duration patience) {
        /** Claims at the executor's own agent, the one its environment names, with the defaults. */
        public Options(String bootstrap, String topic, String checkpoint, String queryName, String namespace) {
            this(
                    bootstrap,
                    topic,
                    checkpoint,
                    queryName,
                    List.of(),
                    namespace,
                    "message-id",
                    DedupTransform.DEFAULT_CHUNK,
                    1_000,
                    DedupTransform.DEFAULT_PATIENCE);
        }
    }

    private final Options options;
    private final AggregateSink sink;
    private final DedupTransform dedup;

    public SparkDedupJob(Options options, AggregateSink sink) {
        this.options = options;
        this.sink = sink;
        this.dedup = DedupTransform.builder(options.namespace())
                .idFromHeader(options.idHeader())
                .agents(options.agents())
                .chunk(options.chunk())
                .patience(options.patience())
                .build();
    }

    /**
     * Starts the query over what the topic holds now ({@code Trigger.AvailableNow}, in micro-batches of
     * {@code maxOffsetsPerTrigger}); a long-running job would use {@code Trigger.ProcessingTime}.
     *
     * @param process the per-event work between the claim and the aggregation (enrichment, filters); it runs in
     *                the claiming task, so a failure there makes Spark retry the task, which gets {@code RETRY}
     */
    public StreamingQuery start(SparkSession spark, UnaryOperator<Dataset<Row>> process) throws TimeoutException {
        return start(spark, process, Trigger.AvailableNow());
    }

    /**
     * {@link #start(SparkSession, UnaryOperator)} with another trigger: {@code Trigger.ProcessingTime} for a job that
     * runs as long as its stream does.
     */
    public StreamingQuery start(SparkSession spark, UnaryOperator<Dataset<Row>> process, Trigger trigger)
            throws TimeoutException {
        VoidFunction2<Dataset<Row>, Long> perBatch = (batch, batchId) -> {
            Dataset<Row> events = events(dedup.claimAndKeep(batch), options.idHeader());
            Dataset<Row> kept = process.apply(events).persist(StorageLevel.MEMORY_ONLY()); // claimed once, read twice
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
                .trigger(trigger)
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
    public static DataStreamWriter<Row> option(DataStreamWriter<Row> writer, String key, String value) {
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

    /**
     * The job's own parsing: its events ({@link #EVENTS}) from the kept Kafka rows, the id again from its header,
     * the app, event time and amount from the value ({@code app,event_ms,amount}).
     */
    public static Dataset<Row> events(Dataset<Row> kafkaRows, String idHeader) {
        return kafkaRows
                .selectExpr(
                        "CAST(element_at(filter(headers, h -> h.key = '" + idHeader.replace("'", "''")
                                + "'), -1).value AS STRING) AS id",
                        "split(CAST(value AS STRING), ',') AS f",
                        "partition",
                        "offset")
                .selectExpr(
                        "id",
                        "f[0] AS app",
                        "CAST(f[1] AS BIGINT) AS event_ms",
                        "CAST(f[2] AS BIGINT) AS amount",
                        "partition",
                        "offset");
    }

    /** The verdicts of successful task attempts so far (once a micro-batch has run). */
    public VerdictCounts verdicts() {
        return dedup.counts();
    }

    /**
     * Aggregates the kept events ({@link #EVENTS}: {@code id, app, event_ms, amount, ...}) by app and minute
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
