package dev.dedup.examples.kafka;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dedup.examples.sink.AggregateSink;
import dev.dedup.examples.testing.Agent;
import dev.dedup.examples.testing.ChildJvm;
import dev.dedup.examples.testing.ConsumerMember;
import dev.dedup.examples.testing.KafkaAndAgent;
import dev.dedup.examples.testing.KafkaBroker;
import dev.dedup.examples.testing.Postgres;
import dev.dedup.examples.testing.Sink;
import dev.dedup.examples.testing.StreamsMember;
import dev.dedup.examples.testing.Traffic;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Two engines on one namespace: a Kafka consumer loop (the ready {@code JdbcSink} into PostgreSQL) and a Kafka
 * Streams application (into an output topic) read the same messages, with copies, from topics of their own; each is
 * killed ({@code kill -9}) once mid-stream and started again. Over both outputs together, each message is written
 * once: whichever engine claimed it first keeps it, the other answers duplicate.
 */
class CrossEngineIT {

    private static final int PARTITIONS = 3;
    private static final String NS = "cross";

    @RegisterExtension
    static final KafkaAndAgent kafka = new KafkaAndAgent("cross");

    static KafkaBroker broker;
    static Agent agent;
    static Path dir;

    @BeforeAll
    static void names() {
        broker = kafka.broker();
        agent = kafka.agent();
        dir = kafka.dir();
    }

    @Test
    void aConsumerLoopAndAKafkaStreamsApplication_eachKilledOnce_writeEachMessageOnceBetweenThem() throws Exception {
        String loopTopic = "cross-loop";
        String streamsTopic = "cross-streams";
        String output = "cross-streams-out";
        broker.createTopic(loopTopic, PARTITIONS);
        broker.createTopic(streamsTopic, PARTITIONS);
        broker.createTopic(output, 1);
        Traffic traffic = Traffic.generate(1_200, PARTITIONS, 59);
        traffic.produce(broker.bootstrap(), loopTopic);
        traffic.produce(broker.bootstrap(), streamsTopic);

        try (Postgres db = Postgres.createDatabase("cross")) {
            new AggregateSink(db.url(), AggregateSink.Audit.NONE).createTables();
            Sink.createAuditTable(db);
            List<String> loopArgs = List.of(broker.bootstrap(), loopTopic, "group-cross", db.url(), NS, "jdbcSink");
            List<String> streamsArgs = List.of(
                    broker.bootstrap(), streamsTopic, output, "cross-app", "", NS); // the state dir is set below
            try (ChildJvm loopFirst = member("loop-1", ConsumerMember.class, with(loopArgs, "pauseBeforeCommit=2"));
                    ChildJvm streamsFirst = member("streams-1", StreamsMember.class, state(streamsArgs, "state-1"))) {
                loopFirst.awaitLine(l -> l.startsWith("PAUSED"), Duration.ofSeconds(90));
                streamsFirst.awaitLine(l -> l.startsWith("FLUSHED"), Duration.ofSeconds(90));
                loopFirst.kill9();
                streamsFirst.kill9();
            }
            try (ChildJvm loop = member("loop-2", ConsumerMember.class, loopArgs);
                    ChildJvm streams = member("streams-2", StreamsMember.class, state(streamsArgs, "state-2"))) {
                awaitLoopCaughtUp(db, loopTopic);
                Map<TopicPartition, Long> end = broker.endOffsets(streamsTopic, PARTITIONS);
                long deadline = System.nanoTime() + Duration.ofSeconds(120).toNanos();
                while (!KafkaBroker.caughtUp(broker.committed("cross-app"), end) && System.nanoTime() < deadline) {
                    Thread.sleep(200);
                }
                assertTrue(KafkaBroker.caughtUp(broker.committed("cross-app"), end), streams.tail());
                loop.terminate(Duration.ofSeconds(30));
            }

            Map<String, Integer> written = new HashMap<>(broker.committedMessageIds(output));
            int fromStreams = written.size();
            try (Connection c = db.connect();
                    Statement s = c.createStatement();
                    ResultSet rs = s.executeQuery("SELECT id, times FROM audit")) {
                while (rs.next()) {
                    written.merge(rs.getString(1), rs.getInt(2), Integer::sum);
                }
            }
            int fromLoop = written.values().stream().mapToInt(Integer::intValue).sum() - fromStreams;
            Map<String, Integer> notOnce = traffic.messages().stream()
                    .map(m -> m.id())
                    .filter(id -> written.getOrDefault(id, 0) != 1)
                    .collect(Collectors.toMap(id -> id, id -> written.getOrDefault(id, 0)));
            System.out.println("[cross] " + traffic.messages().size() + " messages: " + fromLoop + " written by the"
                    + " consumer loop, " + fromStreams + " by the Kafka Streams application, " + notOnce.size()
                    + " not once");
            assertEquals(Map.of(), notOnce, "each message once over both engines: id -> times written");
            assertEquals(traffic.messages().size(), written.size(), "no id that never existed");
            assertTrue(fromLoop > 0 && fromStreams > 0, "both engines kept messages");
        }
    }

    private static List<String> with(List<String> args, String more) {
        List<String> all = new java.util.ArrayList<>(args);
        all.add(more);
        return all;
    }

    private static List<String> state(List<String> args, String name) {
        List<String> all = new java.util.ArrayList<>(args);
        all.set(4, dir.resolve(name).toString());
        return all;
    }

    private static ChildJvm member(String name, Class<?> main, List<String> args) throws Exception {
        return ChildJvm.start(
                name,
                dir.resolve(name + ".log"),
                List.of("-Xmx256m", "-XX:+UseSerialGC"),
                main.getName(),
                args,
                Map.of("DEDUP_URL", agent.uri().toString()));
    }

    /** Until the loop's sink holds the end of every partition of its topic. */
    private static void awaitLoopCaughtUp(Postgres db, String topic) throws Exception {
        Map<TopicPartition, Long> end = broker.endOffsets(topic, PARTITIONS);
        long deadline = System.nanoTime() + Duration.ofSeconds(120).toNanos();
        while (System.nanoTime() < deadline) {
            Map<TopicPartition, Long> stored = new HashMap<>();
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
        throw new AssertionError("the consumer loop's sink did not reach " + end);
    }
}
