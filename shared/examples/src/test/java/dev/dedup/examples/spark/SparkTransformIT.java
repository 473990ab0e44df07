package dev.dedup.examples.spark;

import static org.apache.spark.sql.functions.col;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpServer;
import dev.dedup.examples.sink.AggregateSink;
import dev.dedup.examples.testing.Postgres;
import dev.dedup.examples.testing.Report;
import dev.dedup.examples.testing.Services;
import dev.dedup.examples.testing.Sink;
import dev.dedup.examples.testing.SparkFixture;
import dev.dedup.examples.testing.Traffic;
import dev.dedup.spark.DedupTransform;
import dev.dedup.spark.VerdictCounts;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Date;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Future;
import java.util.stream.Collectors;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.spark.api.java.function.VoidFunction2;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Encoders;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.streaming.StreamingQuery;
import org.apache.spark.sql.streaming.Trigger;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.storage.StorageLevel;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@link DedupTransform} as users call it, on Spark 4 in local mode against a real KRaft broker, the agent jar
 * (embedded store) and PostgreSQL: two schemas (the Kafka source's, and a table of Kinesis-shaped rows), a batch job,
 * a streaming Dataset given to a sink directly, two queries sharing one namespace (beside Spark's own
 * {@code dropDuplicates}, which cannot share its state), and the errors a user meets. Every test claims in a
 * namespace of its own.
 */
class SparkTransformIT {

    static final String HEADER = "message-id";

    @RegisterExtension
    static final Services services = Services.kafka("transform").withAgent();

    @RegisterExtension
    static final SparkFixture spark = new SparkFixture();

    private static DedupTransform.Builder dedup(String namespace) {
        return DedupTransform.builder(namespace).agents(List.of(services.agent().uri()));
    }

    /** Writes {@code ids} in order, one record each at partition {@code i % partitions}, the id in its header. */
    private static void produce(String topic, int partitions, List<String> ids) throws Exception {
        services.broker().createTopic(topic, partitions);
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, services.broker().bootstrap());
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        p.put(ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, "1"); // see Traffic.produce
        List<Future<RecordMetadata>> sent = new ArrayList<>();
        try (KafkaProducer<String, byte[]> producer =
                new KafkaProducer<>(p, new StringSerializer(), new ByteArraySerializer())) {
            for (int i = 0; i < ids.size(); i++) {
                String id = ids.get(i);
                sent.add(producer.send(new ProducerRecord<>(
                        topic,
                        i % partitions,
                        null,
                        "user-7", // one key for all: the key is not the id
                        ("payload of " + id).getBytes(StandardCharsets.UTF_8),
                        id == null
                                ? List.of()
                                : List.of(new RecordHeader(HEADER, id.getBytes(StandardCharsets.UTF_8))))));
            }
            for (Future<RecordMetadata> f : sent) {
                f.get();
            }
        }
    }

    private static Dataset<Row> readKafka(String topic, boolean headers) {
        return spark.session()
                .read()
                .format("kafka")
                .option("kafka.bootstrap.servers", services.broker().bootstrap())
                .option("subscribe", topic)
                .option("includeHeaders", String.valueOf(headers))
                .load();
    }

    private static Map<String, Long> verdictsOf(Dataset<Row> marked) {
        Map<String, Long> n = new HashMap<>();
        for (Row r :
                marked.groupBy(DedupTransform.DEFAULT_VERDICT_COLUMN).count().collectAsList()) {
            n.put(r.getString(0), r.getLong(1));
        }
        return n;
    }

    @Test
    void theKafkaSource_keepsEveryColumn_andGetsAVerdictPerRow_thenRetryWhenReadAgain() throws Exception {
        // a, b, c each written twice (at other offsets), d once; one key for all
        produce("kafka-schema", 2, List.of("a", "b", "c", "a", "b", "c", "d"));
        DedupTransform t = dedup("kafka-schema").idFromHeader(HEADER).build();
        Dataset<Row> source = readKafka("kafka-schema", true);

        Dataset<Row> marked = t.withVerdicts(source).persist(StorageLevel.MEMORY_ONLY());

        List<String> expected = new ArrayList<>(Arrays.asList(source.columns()));
        expected.add("dedup_verdict");
        assertEquals(expected, Arrays.asList(marked.columns()));
        assertEquals(source.schema(), marked.drop("dedup_verdict").schema(), "the input's columns, types unchanged");
        assertEquals(Map.of("new", 4L, "duplicate", 3L), verdictsOf(marked));
        assertEquals(
                Set.of("a", "b", "c", "d"),
                Set.copyOf(marked.filter(col("dedup_verdict").equalTo("new"))
                        .selectExpr("CAST(headers[0].value AS STRING)")
                        .as(Encoders.STRING())
                        .collectAsList()));
        marked.unpersist();

        // the same copies read again (a job re-run over the topic): same owners, retry; the other copies stay dropped
        Dataset<Row> again = t.claimAndKeep(source);
        assertEquals(source.schema(), again.schema());
        assertEquals(4, again.count());
        VerdictCounts v = t.counts();
        assertEquals(4, v.fresh());
        assertEquals(4, v.retried());
        assertEquals(6, v.duplicates());
    }

    @Test
    void aKinesisShapedTable_withItsOwnColumns_throughTheSameCall() {
        StructType schema = new StructType()
                .add("stream", DataTypes.StringType)
                .add("shardId", DataTypes.StringType)
                .add("sequenceNumber", DataTypes.StringType)
                .add(
                        "order",
                        DataTypes.createStructType(List.of(
                                DataTypes.createStructField("txid", DataTypes.StringType, true),
                                DataTypes.createStructField("cents", DataTypes.LongType, true))))
                .add("approximateArrivalTimestamp", DataTypes.TimestampType);
        java.sql.Timestamp at = java.sql.Timestamp.valueOf("2026-11-28 12:00:00");
        List<Row> rows = List.of(
                RowFactory.create("orders", "shardId-000000000000", "101", RowFactory.create("t-1", 100L), at),
                RowFactory.create("orders", "shardId-000000000001", "205", RowFactory.create("t-1", 100L), at),
                RowFactory.create("orders", "shardId-000000000000", "102", RowFactory.create("t-2", 250L), at));
        Dataset<Row> table = spark.session().createDataFrame(rows, schema).repartition(2);
        DedupTransform t = dedup("kinesis-schema")
                .id(col("order.txid"))
                .ownerFromKinesis("stream", "shardId", "sequenceNumber")
                .eventTime(col("approximateArrivalTimestamp"))
                .verdictColumn("verdict")
                .build();

        // sorted here, not with orderBy: a sort samples its input in a job of its own, which would claim the rows
        // once more (the second claims answer retry)
        List<Row> out = new ArrayList<>(t.withVerdicts(table).collectAsList());
        out.sort(java.util.Comparator.comparing(r -> r.getString(2)));

        assertEquals(3, out.size());
        assertEquals(
                schema.add("verdict", DataTypes.StringType, false), out.get(0).schema());
        Map<String, String> bySequence =
                out.stream().collect(Collectors.toMap(r -> r.getString(2), r -> r.getString(5)));
        assertEquals("new", bySequence.get("102"));
        assertEquals(Set.of("new", "duplicate"), Set.of(bySequence.get("101"), bySequence.get("205")), "t-1 kept once");
        assertEquals(100L, out.get(0).getStruct(3).getLong(1), "nested columns come through");
    }

    @Test
    void claimAndKeep_withHelperColumns_givesBackTheInputSchemaAndValues() {
        StructType schema = new StructType()
                .add("stream", DataTypes.StringType)
                .add("shardId", DataTypes.StringType)
                .add("sequenceNumber", DataTypes.StringType)
                .add("txid", DataTypes.StringType)
                .add("cents", DataTypes.LongType)
                .add("stamped", DataTypes.LongType);
        List<Row> rows = List.of(
                RowFactory.create("orders", "shardId-000000000000", "7", "x-1", 100L, 1_764_000_000L),
                RowFactory.create("orders", "shardId-000000000001", "9", "x-1", 100L, 1_764_000_000L),
                RowFactory.create("orders", "shardId-000000000000", "8", "x-2", 250L, 1_764_000_001L));
        DedupTransform t = dedup("helper-columns")
                .id(col("txid"))
                .ownerFromKinesis("stream", "shardId", "sequenceNumber")
                .eventTime(col("stamped"))
                .build();

        Dataset<Row> unique =
                t.claimAndKeep(spark.session().createDataFrame(rows, schema).coalesce(1));

        assertEquals(schema, unique.schema(), "the helper columns are not in the result");
        List<Row> values = new ArrayList<>();
        for (Row r : unique.collectAsList()) {
            values.add(RowFactory.create(r.get(0), r.get(1), r.get(2), r.get(3), r.get(4), r.get(5)));
        }
        assertEquals(List.of(rows.get(0), rows.get(2)), values);
    }

    /**
     * What reaches the agent as event time, read off the wire by a stand-in agent that records each item's second:
     * by default the Kafka source's {@code timestamp}, none with {@code noEventTime}; a timestamp's instant, whatever
     * the session's time zone, and whole seconds as they are; a date is refused on the driver.
     */
    @Test
    void eventTimes_reachTheAgentAsTheSecondsOfTheirInstant() throws Exception {
        List<Long> seconds = new CopyOnWriteArrayList<>();
        HttpServer recorder = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        recorder.createContext("/v1/claims", exchange -> {
            try (exchange) {
                ByteBuffer body = ByteBuffer.wrap(exchange.getRequestBody().readAllBytes());
                int nsByte = body.get() & 0xff;
                body.position(body.position() + (nsByte & 0x7f));
                int items = 0;
                while (body.hasRemaining()) {
                    for (int field = 0; field < 2; field++) { // the id, then the owner: u16 length, bytes
                        int length = body.getShort() & 0xffff;
                        body.position(body.position() + length);
                    }
                    seconds.add((nsByte & 0x80) != 0 ? body.getInt() & 0xffffffffL : 0L);
                    items++;
                }
                byte[] verdicts = new byte[items]; // every one new
                exchange.getResponseHeaders().set("Content-Type", "application/x-dedup-verdicts");
                exchange.sendResponseHeaders(200, verdicts.length);
                exchange.getResponseBody().write(verdicts);
            }
        });
        recorder.start();
        String zone = spark.session().conf().get("spark.sql.session.timeZone");
        try {
            URI uri = URI.create("http://127.0.0.1:" + recorder.getAddress().getPort());
            StructType schema = new StructType()
                    .add("topic", DataTypes.StringType)
                    .add("partition", DataTypes.IntegerType)
                    .add("offset", DataTypes.LongType)
                    .add("txid", DataTypes.StringType)
                    .add("at", DataTypes.TimestampType)
                    .add("epoch", DataTypes.LongType)
                    .add("day", DataTypes.DateType)
                    .add("timestamp", DataTypes.TimestampType);
            Instant instant = Instant.parse("2026-11-28T12:34:56.789Z");
            Instant written = Instant.parse("2026-11-28T12:35:07.001Z");
            Row row = RowFactory.create(
                    "t",
                    0,
                    1L,
                    "e-1",
                    Timestamp.from(instant),
                    1_700_000_123L,
                    Date.valueOf("2026-11-28"),
                    Timestamp.from(written));
            Dataset<Row> table =
                    spark.session().createDataFrame(List.of(row), schema).coalesce(1);
            DedupTransform.Builder b =
                    DedupTransform.builder("event-times").agents(List.of(uri)).id(col("txid"));

            assertEquals(1, b.build().claimAndKeep(table).count(), "the Kafka source's timestamp, by default");
            assertEquals(1, b.noEventTime().build().claimAndKeep(table).count(), "none");
            spark.session().conf().set("spark.sql.session.timeZone", "America/Los_Angeles");
            assertEquals(1, b.eventTime(col("at")).build().claimAndKeep(table).count());
            spark.session().conf().set("spark.sql.session.timeZone", "Asia/Tokyo");
            assertEquals(1, b.eventTime(col("at")).build().claimAndKeep(table).count());
            assertEquals(
                    1, b.eventTime(col("epoch")).build().claimAndKeep(table).count());
            assertEquals(
                    List.of(
                            written.getEpochSecond(),
                            0L,
                            instant.getEpochSecond(),
                            instant.getEpochSecond(),
                            1_700_000_123L),
                    seconds);

            IllegalArgumentException e = assertThrows(
                    IllegalArgumentException.class,
                    () -> b.eventTime(col("day")).build().claimAndKeep(table));
            assertTrue(e.getMessage().startsWith("eventTime: day is a date;"), e.getMessage());
        } finally {
            spark.session().conf().set("spark.sql.session.timeZone", zone);
            recorder.stop(0);
        }
    }

    @Test
    void aBatchJob_overTheWholeTopic_leavesTheSinkExact() throws Exception {
        Traffic traffic = Traffic.generate(1_500, 3, 7);
        services.broker().createTopic("batch-job", 3);
        traffic.produce(services.broker().bootstrap(), "batch-job");
        DedupTransform t = dedup("batch-job").idFromHeader(HEADER).build();

        try (Postgres db = Postgres.createDatabase("transform")) {
            AggregateSink sink = new AggregateSink(db.url(), Sink.AUDIT);
            sink.createTables();
            Sink.createAuditTable(db);
            Dataset<Row> kept = SparkDedupJob.events(t.claimAndKeep(readKafka("batch-job", true)), HEADER)
                    .persist(StorageLevel.MEMORY_ONLY());
            SparkDedupJob.writeBatch(kept, "backfill", 0, sink);
            kept.unpersist();

            Sink.Check check = Sink.check(db, traffic);
            Report.line("transform  batch job: " + check + "; " + t.counts());
            assertTrue(check.exact(), check.toString());
            assertEquals(traffic.messages().size(), t.counts().fresh());
            assertEquals(
                    traffic.copies().size() - traffic.messages().size(),
                    t.counts().duplicates());
        }
    }

    @Test
    void aStreamingDataset_givenToTheFileSinkDirectly_holdsEachMessageOnce() throws Exception {
        Traffic traffic = Traffic.generate(1_000, 2, 11);
        services.broker().createTopic("stream-direct", 2);
        traffic.produce(services.broker().bootstrap(), "stream-direct");
        DedupTransform t = dedup("stream-direct").idFromHeader(HEADER).build();
        Path out = services.dir().resolve("stream-direct-out");

        Dataset<Row> stream = spark.session()
                .readStream()
                .format("kafka")
                .option("kafka.bootstrap.servers", services.broker().bootstrap())
                .option("subscribe", "stream-direct")
                .option("includeHeaders", "true")
                .option("startingOffsets", "earliest")
                .option("maxOffsetsPerTrigger", 400)
                .load();
        StreamingQuery q = SparkDedupJob.option(
                        SparkDedupJob.events(t.claimAndKeep(stream), HEADER)
                                .writeStream()
                                .format("parquet")
                                .option("path", out.toString()),
                        "checkpointLocation",
                        services.dir().resolve("stream-direct-checkpoint").toString())
                .trigger(Trigger.AvailableNow())
                .start();
        assertTrue(q.awaitTermination(120_000), "the query ended");

        List<String> ids = spark.session()
                .read()
                .parquet(out.toString())
                .select("id")
                .as(Encoders.STRING())
                .collectAsList();
        assertEquals(traffic.messages().size(), ids.size(), "one row per message");
        assertEquals(traffic.messages().stream().map(Traffic.Message::id).collect(Collectors.toSet()), Set.copyOf(ids));
    }

    /**
     * A topic too big for one job is split between two queries by partition, writing one sink. A late copy lands on
     * another partition than its original, so half the time in the other query: with one namespace the agent answers
     * it {@code duplicate} there. Spark's own {@code dropDuplicates}, even with unbounded state, keeps state per
     * query and counts each such message twice.
     */
    @Test
    void twoQueriesSplittingATopic_shareOneNamespace_whereSparksOwnStateCountsCrossCopiesTwice() throws Exception {
        int partitions = 4;
        Traffic traffic = Traffic.generate(2_000, partitions, 23);
        services.broker().createTopic("two-queries", partitions);
        traffic.produce(services.broker().bootstrap(), "two-queries");
        Set<String> crossing = crossingIds(traffic);
        assertTrue(crossing.size() > 10, "the stream has copies across the two halves: " + crossing.size());

        Sink.Check agentCheck;
        long agentDuplicates;
        try (Postgres db = sinkDatabase()) {
            AggregateSink sink = new AggregateSink(db.url(), Sink.AUDIT);
            DedupTransform first = dedup("two-queries").idFromHeader(HEADER).build();
            DedupTransform second = dedup("two-queries").idFromHeader(HEADER).build();
            StreamingQuery a =
                    query("agent-a", "[0,1]", (batch, id) -> write(first.claimAndKeep(batch), "a", id, sink));
            StreamingQuery b =
                    query("agent-b", "[2,3]", (batch, id) -> write(second.claimAndKeep(batch), "b", id, sink));
            assertTrue(a.awaitTermination(180_000) && b.awaitTermination(180_000), "both queries ended");
            agentCheck = Sink.check(db, traffic);
            agentDuplicates = first.counts().duplicates() + second.counts().duplicates();
        }

        Sink.Check ownCheck;
        Set<String> twice;
        try (Postgres db = sinkDatabase()) {
            AggregateSink sink = new AggregateSink(db.url(), Sink.AUDIT);
            StreamingQuery a = ownQuery("own-a", "[0,1]", sink);
            StreamingQuery b = ownQuery("own-b", "[2,3]", sink);
            assertTrue(a.awaitTermination(180_000) && b.awaitTermination(180_000), "both queries ended");
            ownCheck = Sink.check(db, traffic);
            twice = Sink.countedTwice(db);
        }

        Report.line(String.format(
                "transform  two queries on one topic (%d records, %d unique, %d messages with copies in both halves):"
                        + " agent %s, %d duplicates; Spark's dropDuplicates per query %s",
                traffic.copies().size(),
                traffic.messages().size(),
                crossing.size(),
                agentCheck,
                agentDuplicates,
                ownCheck));
        assertTrue(agentCheck.exact(), "one namespace across the queries: " + agentCheck);
        assertEquals(traffic.copies().size() - traffic.messages().size(), agentDuplicates);
        assertEquals(crossing, twice, "Spark's own state counts exactly the messages whose copies cross queries twice");
        assertEquals(0, ownCheck.lost(), ownCheck.toString());
    }

    /** Ids with copies in both halves of the partitions ({0,1} and {2,3}). */
    private static Set<String> crossingIds(Traffic traffic) {
        Map<String, Set<Integer>> halves = new HashMap<>();
        for (Traffic.Copy c : traffic.copies()) {
            halves.computeIfAbsent(c.message().id(), k -> new HashSet<>()).add(c.partition() / 2);
        }
        return halves.entrySet().stream()
                .filter(e -> e.getValue().size() == 2)
                .map(Map.Entry::getKey)
                .collect(Collectors.toSet());
    }

    private static Postgres sinkDatabase() throws Exception {
        Postgres db = Postgres.createDatabase("transform");
        new AggregateSink(db.url(), AggregateSink.Audit.NONE).createTables();
        Sink.createAuditTable(db);
        return db;
    }

    private static void write(Dataset<Row> kept, String query, long batchId, AggregateSink sink) throws Exception {
        Dataset<Row> events = SparkDedupJob.events(kept, HEADER).persist(StorageLevel.MEMORY_ONLY());
        try {
            SparkDedupJob.writeBatch(events, query, batchId, sink);
        } finally {
            events.unpersist();
        }
    }

    private static Dataset<Row> half(String partitions) {
        return spark.session()
                .readStream()
                .format("kafka")
                .option("kafka.bootstrap.servers", services.broker().bootstrap())
                .option("assign", "{\"two-queries\":" + partitions + "}")
                .option("includeHeaders", "true")
                .option("startingOffsets", "earliest")
                .option("maxOffsetsPerTrigger", 500)
                .load();
    }

    private static StreamingQuery query(String name, String partitions, VoidFunction2<Dataset<Row>, Long> perBatch)
            throws Exception {
        return SparkDedupJob.option(
                        half(partitions).writeStream().queryName(name),
                        "checkpointLocation",
                        services.dir().resolve("checkpoint-" + name).toString())
                .trigger(Trigger.AvailableNow())
                .foreachBatch(perBatch)
                .start();
    }

    /** Spark's own at its most exact within a query: {@code dropDuplicates} on the id, state never evicted. */
    private static StreamingQuery ownQuery(String name, String partitions, AggregateSink sink) throws Exception {
        Dataset<Row> unique = half(partitions)
                .selectExpr(
                        "CAST(element_at(filter(headers, h -> h.key = '" + HEADER + "'), -1).value AS STRING) AS id",
                        "headers",
                        "value",
                        "partition",
                        "offset")
                .dropDuplicates("id");
        return SparkDedupJob.option(
                        unique.writeStream().queryName(name),
                        "checkpointLocation",
                        services.dir().resolve("checkpoint-" + name).toString())
                .trigger(Trigger.AvailableNow())
                .foreachBatch((VoidFunction2<Dataset<Row>, Long>) (batch, id) -> write(batch, name, id, sink))
                .start();
    }

    @Test
    void aMissingHeadersColumn_orIdColumn_isRefusedOnTheDriver_namingIt() throws Exception {
        produce("errors", 1, List.of("e-1"));
        Dataset<Row> noHeaders = readKafka("errors", false);

        IllegalArgumentException e = assertThrows(
                IllegalArgumentException.class,
                () -> dedup("errors").idFromHeader(HEADER).build().claimAndKeep(noHeaders));
        assertTrue(
                e.getMessage().contains("no column headers") && e.getMessage().contains("includeHeaders"),
                e.getMessage());

        e = assertThrows(
                IllegalArgumentException.class,
                () -> dedup("errors").id("txid").build().claimAndKeep(noHeaders));
        assertTrue(
                e.getMessage().startsWith("id: the Dataset has no column txid (columns: key, value"), e.getMessage());

        e = assertThrows(
                IllegalArgumentException.class,
                () -> dedup("errors")
                        .id("key")
                        .build()
                        .claimAndKeep(noHeaders.withColumn(
                                "partition", col("partition").cast("string"))));
        assertTrue(
                e.getMessage()
                        .startsWith("owner: column partition is a string, where the Kafka source gives a"
                                + " whole number"),
                e.getMessage());

        e = assertThrows(
                IllegalArgumentException.class,
                () -> dedup("errors")
                        .idFromHeader(HEADER)
                        .build()
                        .withVerdicts(readKafka("errors", true).withColumn("dedup_verdict", col("key"))));
        assertTrue(e.getMessage().startsWith("verdictColumn: the Dataset has a column dedup_verdict"), e.getMessage());
    }

    @Test
    void aRecordWithoutTheIdHeader_failsItsTask_namingTheHeaderAndTheRecord() throws Exception {
        produce("no-header", 1, Arrays.asList("h-1", null));
        DedupTransform t = dedup("no-header").idFromHeader(HEADER).build();

        Exception e = assertThrows(
                Exception.class,
                () -> t.claimAndKeep(readKafka("no-header", true)).count());

        String chain = causes(e);
        assertTrue(chain.contains("the record at no-header:0:1 has no (or an empty) header message-id"), chain);
    }

    private static String causes(Throwable e) {
        StringBuilder b = new StringBuilder();
        for (Throwable t = e; t != null; t = t.getCause()) {
            b.append(t.getMessage()).append(" <- ");
        }
        return b.toString();
    }
}
