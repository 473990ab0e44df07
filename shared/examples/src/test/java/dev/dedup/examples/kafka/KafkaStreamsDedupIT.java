package dev.dedup.examples.kafka;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dedup.examples.testing.ChildJvm;
import dev.dedup.examples.testing.KafkaBroker;
import dev.dedup.examples.testing.Services;
import dev.dedup.examples.testing.StreamsMember;
import dev.dedup.examples.testing.Traffic;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The library's Kafka Streams processor ({@code dedup-kafka-streams}) against a real KRaft broker and the agent jar:
 * two applications of one namespace read the same messages (with copies at other offsets) from two topics into one
 * output topic; one of them is killed ({@code kill -9}) mid-stream and started again with an empty state directory,
 * so that its tasks are restored from the changelog. A {@code read_committed} reader of the output finds each message
 * once. Kafka Streams' own deduplication (a window store per application) would let each application pass one copy.
 */
class KafkaStreamsDedupIT {

    private static final int PARTITIONS = 3;

    @RegisterExtension
    static final Services kafka = Services.kafka("streams").withAgent();

    @Test
    void twoApplicationsOfOneNamespace_oneKilledAndRestored_outputEachMessageOnce() throws Exception {
        Topics topics = new Topics("streams-east", "streams-west", "streams-unique");
        Traffic traffic = topics.write(Traffic.generate(1_500, PARTITIONS, 41));

        try (ChildJvm westApp = app("west", topics.west(), topics.output(), "state-west");
                ChildJvm eastFirst = app("east", topics.east(), topics.output(), "state-east-1")) {
            eastFirst.awaitLine(l -> l.startsWith("FLUSHED"), Duration.ofSeconds(90));
            eastFirst.kill9();
            try (ChildJvm eastAgain = app("east", topics.east(), topics.output(), "state-east-2")) {
                awaitCaughtUp("dedup-east", topics.east());
                awaitCaughtUp("dedup-west", topics.west());
                assertTrue(eastAgain.output().contains("FLUSHED"), eastAgain.tail());
            }
        }

        Map<String, Integer> seen = kafka.broker().committedMessageIds(topics.output());
        Set<String> expected = traffic.messages().stream().map(m -> m.id()).collect(Collectors.toSet());
        assertEquals(expected, new HashSet<>(seen.keySet()), "every message, none unknown");
        Map<String, Integer> twice = seen.entrySet().stream()
                .filter(e -> e.getValue() != 1)
                .collect(Collectors.toMap(Map.Entry::getKey, Map.Entry::getValue));
        assertEquals(Map.of(), twice, "each message once, over both applications and the kill");
    }

    /**
     * The same two applications with Kafka Streams' own deduplication (each remembers the ids it forwarded, in a
     * store of its own): each passes the first copy it reads of every message, so the output holds each message
     * twice. Said with its figure, for the comparison in docs/kafka-streams.md.
     */
    @Test
    void kafkaStreamsOwnDedup_perApplication_passesEachMessageOncePerApplication() throws Exception {
        Topics topics = new Topics("own-east", "own-west", "own-unique");
        Traffic traffic = topics.write(Traffic.generate(600, PARTITIONS, 43));
        try (ChildJvm westApp = app("own-west", topics.west(), topics.output(), "own-state-west", "ownDedup");
                ChildJvm eastApp = app("own-east", topics.east(), topics.output(), "own-state-east", "ownDedup")) {
            awaitCaughtUp("dedup-own-east", topics.east());
            awaitCaughtUp("dedup-own-west", topics.west());
            awaitNoLag("dedup-own-east"); // the repartition topic too
            awaitNoLag("dedup-own-west");
        }
        Map<String, Integer> seen = kafka.broker().committedMessageIds(topics.output());
        long twice = seen.values().stream().filter(n -> n == 2).count();
        System.out.println("[streams] Kafka Streams' own dedup, two applications over the same "
                + traffic.messages().size() + " messages: " + twice + " written twice, " + seen.size() + " in all");
        assertEquals(traffic.messages().size(), seen.size(), "every message");
        assertEquals(traffic.messages().size(), twice, "each application passes its own first copy of each message");
    }

    /** A test's topics: two inputs that hold the same traffic, one output. */
    private record Topics(String east, String west, String output) {
        /** Creates the topics and writes {@code traffic} to both inputs. */
        Traffic write(Traffic traffic) throws Exception {
            kafka.broker().createTopic(east, PARTITIONS);
            kafka.broker().createTopic(west, PARTITIONS);
            kafka.broker().createTopic(output, 1);
            traffic.produce(kafka.broker().bootstrap(), east);
            traffic.produce(kafka.broker().bootstrap(), west);
            return traffic;
        }
    }

    private static ChildJvm app(String name, String input, String output, String stateDir, String... mode)
            throws Exception {
        List<String> args = new java.util.ArrayList<>(List.of(
                kafka.broker().bootstrap(),
                input,
                output,
                "dedup-" + name,
                kafka.dir().resolve(stateDir).toString(),
                "streams"));
        args.addAll(List.of(mode));
        return ChildJvm.start(
                "streams-" + name,
                kafka.dir().resolve(stateDir + ".log"),
                List.of("-Xmx256m", "-XX:+UseSerialGC"),
                StreamsMember.class.getName(),
                args,
                Map.of("DEDUP_URL", kafka.agent().uri().toString()));
    }

    /** Until the application's committed offsets reach the end of its input. */
    private static void awaitCaughtUp(String applicationId, String input) throws Exception {
        Map<TopicPartition, Long> end = kafka.broker().endOffsets(input, PARTITIONS);
        long deadline = System.nanoTime() + Duration.ofSeconds(120).toNanos();
        while (!KafkaBroker.caughtUp(kafka.broker().committed(applicationId), end) && System.nanoTime() < deadline) {
            Thread.sleep(200);
        }
        assertTrue(
                KafkaBroker.caughtUp(kafka.broker().committed(applicationId), end),
                applicationId + " committed " + kafka.broker().committed(applicationId) + ", the input ends at " + end);
    }

    /** Until the application has consumed every partition it commits (its input and its repartition topics). */
    private static void awaitNoLag(String applicationId) throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(120).toNanos();
        Map<TopicPartition, Long> behind = kafka.broker().behind(applicationId);
        while (!behind.isEmpty() && System.nanoTime() < deadline) {
            Thread.sleep(200);
            behind = kafka.broker().behind(applicationId);
        }
        if (!behind.isEmpty()) {
            throw new AssertionError(applicationId + " is behind on " + behind);
        }
    }
}
