package dev.dedup.examples.kafka;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dedup.client.Claims;
import dev.dedup.client.DedupClient;
import dev.dedup.examples.sink.AggregateSink;
import dev.dedup.examples.testing.ChildJvm;
import dev.dedup.examples.testing.ConsumerMember;
import dev.dedup.examples.testing.KafkaBroker;
import dev.dedup.examples.testing.Postgres;
import dev.dedup.examples.testing.Services;
import dev.dedup.examples.testing.Sink;
import dev.dedup.examples.testing.Traffic;
import dev.dedup.kafka.DedupConsumerLoop;
import dev.dedup.kafka.MessageIds;
import dev.dedup.kafka.TransactionalSink;
import java.time.Duration;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.GroupState;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The consumer loop's life against a real KRaft broker and the agent jar: SIGTERM with the documented shutdown hook
 * leaves the group before the JVM exits, whichever sink; a loop whose sink holds offsets ahead of Kafka's commits
 * them, so that a partition that gets nothing new shows no lag; Kafka to Kafka through a kill, a rebalance and a
 * SIGTERM, each message output once.
 */
class ConsumerLifecycleIT {

    private static final int PARTITIONS = 3;

    @RegisterExtension
    static final Services kafka = Services.kafka("lifecycle").withAgent();

    /**
     * A member in its own JVM with {@code addShutdownHook(new Thread(loop::stop))}, sent SIGTERM mid-stream: it exits
     * and the group is empty the moment it has (it left; nobody waits out a session timeout), with every record it
     * wrote committed. With the example's own sink, the library's {@code JdbcSink} and its {@code
     * KafkaTransactionSink}.
     */
    @ParameterizedTest
    @ValueSource(strings = {"exampleSink", "jdbcSink", "kafkaSink"})
    void sigtermLeavesTheGroupBeforeTheJvmExits(String sink) throws Exception {
        String topic = "lifecycle-sigterm-" + sink.toLowerCase();
        String group = "group-" + topic;
        kafka.broker().createTopic(topic, PARTITIONS);
        List<String> args = new java.util.ArrayList<>();
        switch (sink) {
            case "jdbcSink" -> args.add("jdbcSink");
            case "kafkaSink" -> {
                kafka.broker().createTopic(topic + "-out", 1);
                args.add("kafkaSink=" + topic + "-out");
            }
            default -> {}
        }
        int records =
                Traffic.generate(600, PARTITIONS, 7).produce(kafka.broker().bootstrap(), topic);
        try (Postgres db = Postgres.createDatabase("lifecycle")) {
            new AggregateSink(db.url(), AggregateSink.Audit.NONE).createTables();
            Sink.createAuditTable(db);
            List<String> memberArgs = new java.util.ArrayList<>(
                    List.of(kafka.broker().bootstrap(), topic, group, db.url(), "lifecycle-" + sink.toLowerCase()));
            memberArgs.addAll(args);
            try (ChildJvm member = ChildJvm.start(
                    "member",
                    kafka.dir().resolve("member-" + sink + ".log"),
                    List.of("-Xmx128m", "-XX:+UseSerialGC"),
                    ConsumerMember.class.getName(),
                    memberArgs,
                    Map.of("DEDUP_URL", kafka.agent().uri().toString()))) {
                member.awaitLine(l -> l.startsWith("VERDICTS"), Duration.ofSeconds(60));
                assertEquals(GroupState.STABLE, describe(group).groupState(), "a member consumes");

                // 143: ended by SIGTERM, after its shutdown hooks ran
                assertEquals(143, member.terminate(Duration.ofSeconds(30)), member.tail());
                ConsumerGroupDescription after = describe(group);
                assertEquals(GroupState.EMPTY, after.groupState(), "left before exiting: " + after);
                assertEquals(0, after.members().size());
            }
            Map<TopicPartition, OffsetAndMetadata> committed = kafka.broker().committed(group);
            long total = committed.values().stream()
                    .mapToLong(OffsetAndMetadata::offset)
                    .sum();
            assertTrue(total > 0 && total <= records, "committed what it wrote: " + committed);
        }
    }

    /**
     * A sink whose output reaches the end of every partition while Kafka has no committed offset (a crash between the
     * sink's transaction and the commit, then nothing new): the restarted loop seeks to the sink's offsets, reads
     * nothing, and commits them to Kafka, so the group's lag is 0.
     */
    @Test
    void aSinkAheadOfKafkaIsCommitted_soIdlePartitionsShowNoLag() throws Exception {
        String topic = "lifecycle-lag";
        String group = "group-" + topic;
        kafka.broker().createTopic(topic, PARTITIONS);
        Traffic.generate(300, PARTITIONS, 11).produce(kafka.broker().bootstrap(), topic);
        Map<TopicPartition, Long> end = kafka.broker().endOffsets(topic, PARTITIONS);
        AtomicInteger written = new AtomicInteger();
        TransactionalSink<String, byte[]> alreadyWritten = new TransactionalSink<>() {
            @Override
            public void write(List<ConsumerRecord<String, byte[]>> kept, Map<TopicPartition, Long> next) {
                written.addAndGet(kept.size());
            }

            @Override
            public Map<TopicPartition, Long> storedOffsets(Collection<TopicPartition> partitions) {
                Map<TopicPartition, Long> stored = new HashMap<>();
                partitions.forEach(tp -> stored.put(tp, end.get(tp)));
                return stored;
            }
        };
        Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.broker().bootstrap());
        p.put(ConsumerConfig.GROUP_ID_CONFIG, group);
        p.put(ConsumerConfig.GROUP_PROTOCOL_CONFIG, "consumer");
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        KafkaConsumer<String, byte[]> consumer =
                new KafkaConsumer<>(p, new StringDeserializer(), new ByteArrayDeserializer());
        DedupConsumerLoop<String, byte[]> loop = DedupConsumerLoop.builder(
                        consumer,
                        new Claims(DedupClient.create(kafka.agent().uri()), "lifecycle", Duration.ofSeconds(30)))
                .topics(topic)
                .idFromHeader(MessageIds.DEFAULT_HEADER)
                .sink(alreadyWritten)
                .build();
        Thread worker = new Thread(loop, "lifecycle-loop");
        worker.start();
        try {
            long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            Map<TopicPartition, OffsetAndMetadata> committed = kafka.broker().committed(group);
            while (!KafkaBroker.caughtUp(committed, end) && System.nanoTime() < deadline) {
                Thread.sleep(100);
                committed = kafka.broker().committed(group);
            }
            assertTrue(
                    KafkaBroker.caughtUp(committed, end), "Kafka's offsets " + committed + ", the topic's end " + end);
            assertEquals(0, written.get(), "nothing was read again");
        } finally {
            assertTrue(loop.stop(Duration.ofSeconds(30)), "the loop ended within the timeout");
            worker.join(5_000);
        }
        assertEquals(GroupState.EMPTY, describe(group).groupState(), "stop() returned after the group was left");
    }

    /**
     * Kafka to Kafka with the ready {@code KafkaTransactionSink}: member A killed ({@code kill -9}) inside a batch's
     * open transaction; its partitions move to member C (a rebalance), which reads A's batch again (retry) and is then
     * sent SIGTERM; member B starts and finishes the topic. The input holds copies of messages at other offsets. A
     * {@code read_committed} reader of the output finds every message once: the aborted transaction's output is never
     * seen, the re-read batch is answered retry and produced again, and the other copies were dropped by their claims.
     */
    @Test
    void kafkaToKafka_killInsideATransaction_aRebalance_andASigterm_outputEveryMessageOnce() throws Exception {
        String topic = "lifecycle-k2k";
        String output = topic + "-out";
        String group = "group-" + topic;
        kafka.broker().createTopic(topic, PARTITIONS);
        kafka.broker().createTopic(output, 1);
        Traffic traffic = Traffic.generate(900, PARTITIONS, 23);
        traffic.produce(kafka.broker().bootstrap(), topic);
        List<String> args = List.of(
                kafka.broker().bootstrap(), topic, group, "jdbc:unused", "lifecycle-k2k", "kafkaSink=" + output);
        List<String> pausing = new java.util.ArrayList<>(args);
        pausing.add("pauseInTransaction=3");
        try (ChildJvm a = member("k2k-a", pausing)) {
            // A alone until it pauses, so that it holds an open transaction whatever the spread over members.
            a.awaitLine(l -> l.startsWith("PAUSED"), Duration.ofSeconds(60));
            try (ChildJvm c = member("k2k-c", args)) {
                a.kill9(); // A's partitions go to C once its session times out: a rebalance
                c.awaitLine(l -> l.startsWith("VERDICTS") && !l.contains("retry=0"), Duration.ofSeconds(90));
                assertEquals(143, c.terminate(Duration.ofSeconds(30)), c.tail()); // SIGTERM: C leaves the group
                ConsumerGroupDescription after = describe(group);
                assertEquals(GroupState.EMPTY, after.groupState(), "C left before exiting: " + after);
            }
        }
        Map<TopicPartition, Long> end = kafka.broker().endOffsets(topic, PARTITIONS);
        try (ChildJvm b = member("k2k-b", args)) {
            long deadline = System.nanoTime() + Duration.ofSeconds(90).toNanos();
            while (!KafkaBroker.caughtUp(kafka.broker().committed(group), end) && System.nanoTime() < deadline) {
                Thread.sleep(200);
            }
            assertTrue(
                    KafkaBroker.caughtUp(kafka.broker().committed(group), end),
                    "B caught up: " + kafka.broker().committed(group) + "\n" + b.tail());
        }
        Map<String, Integer> seen = kafka.broker().committedMessageIds(output);
        java.util.Set<String> expected = new java.util.HashSet<>();
        traffic.messages().forEach(m -> expected.add(m.id()));
        assertEquals(expected, seen.keySet(), "every message, none unknown");
        assertEquals(
                Map.of(),
                seen.entrySet().stream()
                        .filter(e -> e.getValue() != 1)
                        .collect(java.util.stream.Collectors.toMap(Map.Entry::getKey, Map.Entry::getValue)),
                "each once");
    }

    private static ChildJvm member(String name, List<String> args) throws Exception {
        return ChildJvm.start(
                name,
                kafka.dir().resolve(name + ".log"),
                List.of("-Xmx128m", "-XX:+UseSerialGC"),
                ConsumerMember.class.getName(),
                args,
                Map.of("DEDUP_URL", kafka.agent().uri().toString()));
    }

    private static ConsumerGroupDescription describe(String group) throws Exception {
        return kafka.broker()
                .admin()
                .describeConsumerGroups(List.of(group))
                .all()
                .get()
                .get(group);
    }
}
