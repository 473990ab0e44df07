package dev.dedup.examples.spark;

import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dedup.examples.sink.AggregateSink;
import dev.dedup.examples.testing.KafkaBroker;
import dev.dedup.examples.testing.Postgres;
import dev.dedup.examples.testing.Report;
import dev.dedup.examples.testing.Services;
import dev.dedup.examples.testing.Sink;
import dev.dedup.examples.testing.SparkFixture;
import dev.dedup.examples.testing.SparkLocal;
import dev.dedup.examples.testing.Stack;
import dev.dedup.examples.testing.Traffic;
import dev.dedup.examples.testing.Traffic.Kind;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.UnaryOperator;
import org.apache.spark.api.java.function.VoidFunction2;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.streaming.StreamingQuery;
import org.apache.spark.sql.streaming.Trigger;
import org.apache.spark.storage.StorageLevel;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The same stream counted twice over: once by {@link SparkDedupJob} through the agent, once by Spark's own
 * {@code withWatermark("timestamp", "1 minute").dropDuplicatesWithinWatermark("id")} with a watermark shorter than
 * the copies' spread (3 to 6 minutes). Spark keeps an id only until the watermark passes its first copy's time plus
 * the delay, and drops every row older than the watermark: copies re-sent minutes later (stamped when re-sent) come
 * through as new, and originals written minutes after their event time are dropped as late. The agent remembers
 * every claim for its window (24 h) whatever the record's time.
 *
 * <p>It shows what a watermark shorter than the copies' delay does, not what Spark's dedup costs set up to be exact:
 * its run is archived in docs/results/spark-watermark-1-minute.md, and {@code loadtest/bench-pipeline.sh}
 * ({@link dev.dedup.examples.bench.PipelineBench}) measures Spark's operator with a watermark past the longest delay.
 */
class SparkWatermarkPipelineIT {

    static final int UNIQUE = 6_000;
    static final int PARTITIONS = 4;
    static final String DELAY = "1 minute";

    @RegisterExtension
    static final Services services = Services.kafka("spark-watermark");

    @RegisterExtension
    static final SparkFixture sparkFixture = new SparkFixture();

    @Test
    void agentCountsExactlyWhereDropDuplicatesWithinWatermarkLetsCopiesThroughAndDropsLateOriginals(
            KafkaBroker broker, SparkSession spark) throws Exception {
        Traffic traffic = Traffic.generate(UNIQUE, PARTITIONS, 42);
        String topic = "watermark";
        broker.createTopic(topic, PARTITIONS);
        traffic.produce(broker.bootstrap(), topic);

        Sink.Check agent;
        long t0 = System.nanoTime();
        try (Stack stack = Stack.start(Stack.Store.EMBEDDED, services.dir().resolve("agent"));
                Postgres db = Sink.createDatabase()) {
            SparkDedupJob job = new SparkDedupJob(
                    SparkLocal.jobOptions(
                            broker.bootstrap(),
                            topic,
                            services.dir().resolve("checkpoint-agent").toString(),
                            "with-agent",
                            List.of(stack.agentFor(0).uri()),
                            "clicks",
                            600),
                    new AggregateSink(db.url(), Sink.AUDIT));
            StreamingQuery q = job.start(spark, UnaryOperator.identity());
            assertTrue(q.awaitTermination(180_000), "the query with the agent ended within 180 s");
            agent = Sink.check(db, traffic);
        }
        double agentSeconds = (System.nanoTime() - t0) / 1e9;

        Sink.Check own;
        Set<String> lost = new HashSet<>();
        Set<String> twice;
        t0 = System.nanoTime();
        try (Postgres db = Sink.createDatabase()) {
            AggregateSink sink = new AggregateSink(db.url(), Sink.AUDIT);
            VoidFunction2<Dataset<Row>, Long> perBatch = (batch, batchId) -> {
                Dataset<Row> kept = batch.selectExpr("id", "split(v, ',') AS f")
                        .selectExpr(
                                "id",
                                "f[0] AS app",
                                "CAST(f[1] AS BIGINT) AS event_ms",
                                "CAST(f[2] AS BIGINT) AS amount")
                        .persist(StorageLevel.MEMORY_ONLY());
                try {
                    SparkDedupJob.writeBatch(kept, "spark-own", batchId, sink);
                } finally {
                    kept.unpersist();
                }
            };
            StreamingQuery q = spark.readStream()
                    .format("kafka")
                    .option("kafka.bootstrap.servers", broker.bootstrap())
                    .option("subscribe", topic)
                    .option("startingOffsets", "earliest")
                    .option("maxOffsetsPerTrigger", 600)
                    .option("includeHeaders", "true")
                    .load()
                    .selectExpr(
                            "CAST(element_at(filter(headers, h -> h.key = 'message-id'), -1).value AS STRING) AS id",
                            "CAST(value AS STRING) AS v",
                            "timestamp")
                    .withWatermark("timestamp", DELAY)
                    .dropDuplicatesWithinWatermark("id")
                    .writeStream()
                    .queryName("spark-own")
                    .option(
                            "checkpointLocation",
                            services.dir().resolve("checkpoint-own").toString())
                    .trigger(Trigger.AvailableNow())
                    .foreachBatch(perBatch)
                    .start();
            assertTrue(q.awaitTermination(180_000), "the query with dropDuplicatesWithinWatermark ended within 180 s");
            own = Sink.check(db, traffic, lost::addAll);
            twice = Sink.countedTwice(db);
        }
        double ownSeconds = (System.nanoTime() - t0) / 1e9;

        Map<Kind, Long> lostKinds = Sink.byKind(traffic, lost);
        Map<Kind, Long> twiceKinds = Sink.byKind(traffic, twice);
        Report.line(String.format(
                "compare  records %d (unique %d; retry copies %d, late copies %d, late originals %d)",
                traffic.copies().size(),
                UNIQUE,
                traffic.count(Kind.RETRY_COPY),
                traffic.count(Kind.LATE_COPY),
                traffic.count(Kind.LATE_ORIGINAL)));
        Report.line(String.format("compare  agent: %s; %.1f s", agent, agentSeconds));
        Report.line(String.format(
                "compare  dropDuplicatesWithinWatermark(%s): %s; lost ids written as %s; ids counted twice written"
                        + " as %s; %.1f s",
                DELAY, own, lostKinds, twiceKinds, ownSeconds));

        assertTrue(agent.exact(), "the agent: " + agent);
        assertTrue(own.lost() > 0, "Spark drops late originals: " + own);
        assertTrue(own.countedTwice() > 0, "Spark lets late copies through: " + own);
        assertTrue(traffic.ids(Kind.LATE_ORIGINAL).containsAll(lost), "only late originals are lost: " + lostKinds);
        assertTrue(traffic.ids(Kind.LATE_COPY).containsAll(twice), "only late copies count twice: " + twiceKinds);
    }
}
