package dev.dedup.examples.kafka;

import static dev.dedup.examples.kafka.DocsSnippetsTest.Sql.apply;
import static dev.dedup.examples.kafka.DocsSnippetsTest.Sql.connect;
import static dev.dedup.examples.kafka.DocsSnippetsTest.Sql.firstAttempt;
import static dev.dedup.examples.kafka.DocsSnippetsTest.Sql.lockStoredOffsets;
import static dev.dedup.examples.kafka.DocsSnippetsTest.Sql.readStoredOffsets;
import static dev.dedup.examples.kafka.DocsSnippetsTest.Sql.storeOffsets;
import static org.junit.jupiter.api.Assertions.assertSame;

import dev.dedup.client.Claims;
import dev.dedup.examples.sink.AggregateSink;
import dev.dedup.kafka.DedupConsumerLoop;
import dev.dedup.kafka.DedupShareConsumerLoop;
import dev.dedup.kafka.Delivery;
import dev.dedup.kafka.OwnedSink;
import dev.dedup.kafka.TransactionalSink;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.KafkaShareConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.api.Test;

/**
 * The Java blocks of {@code docs/kafka.md} and {@code docs/share-groups.md}, line for line, so that they compile
 * against the library. They are compiled, not called (the pipeline ITs run the same loops against a broker); the
 * sinks' SQL steps, which the docs leave to {@code AggregateSink}, are {@link Sql}'s.
 */
class DocsSnippetsTest {

    /** docs/kafka.md: the loop. */
    static void consumerLoop(Properties props, TransactionalSink<String, byte[]> sink) {
        KafkaConsumer<String, byte[]> consumer =
                new KafkaConsumer<>(props, new StringDeserializer(), new ByteArrayDeserializer());
        DedupConsumerLoop<String, byte[]> loop = DedupConsumerLoop.builder(consumer, Claims.fromEnvironment("clicks"))
                .topics("clicks")
                .idFromHeader("message-id") // never the record key
                .sink(sink)
                .build();
        Runtime.getRuntime().addShutdownHook(new Thread(loop::stop));
        loop.run(); // until stop(): poll, claim, sink.write, commitSync
    }

    /** docs/share-groups.md: the loop. */
    static void shareLoop(Properties props, OwnedSink<String, byte[]> sink) {
        KafkaShareConsumer<String, byte[]> consumer =
                new KafkaShareConsumer<>(props, new StringDeserializer(), new ByteArrayDeserializer());
        DedupShareConsumerLoop<String, byte[]> loop = DedupShareConsumerLoop.builder(
                        consumer, Claims.fromEnvironment("orders"))
                .topics("orders")
                .idFromHeader("message-id")
                .sink(sink)
                .build();
        Runtime.getRuntime().addShutdownHook(new Thread(loop::stop));
        loop.run(); // until stop(): poll, claim, sink.write, acknowledge, commitSync
    }

    /** The steps the docs' sinks name; {@code AggregateSink} holds their SQL. Never called. */
    static final class Sql {
        static Connection connect() throws SQLException {
            throw new SQLException("the docs' sinks are compiled, not run");
        }

        static Map<TopicPartition, Long> lockStoredOffsets(Connection c, Collection<TopicPartition> partitions) {
            return Map.of();
        }

        static Map<TopicPartition, Long> readStoredOffsets(Connection c, Collection<TopicPartition> partitions) {
            return Map.of();
        }

        static void storeOffsets(Connection c, Map<TopicPartition, Long> nextOffsets) {}

        static boolean firstAttempt(Connection c, String owner) {
            return true;
        }

        static void apply(Connection c, ConsumerRecord<String, byte[]> r) {}

        private Sql() {}
    }

    /** The example's sink is what both loops take. */
    @Test
    void theExampleSinkIsBothLoopsSink() {
        AggregateSink example = new AggregateSink("jdbc:postgresql://127.0.0.1/none", AggregateSink.Audit.NONE);
        TransactionalSink<String, byte[]> forTheConsumer = example;
        OwnedSink<String, byte[]> forTheShareGroup = example;
        assertSame(forTheConsumer, forTheShareGroup);
    }
}

/** docs/kafka.md: the sink. */
final class CountsSink implements TransactionalSink<String, byte[]> {
    @Override
    public void write(List<ConsumerRecord<String, byte[]>> kept, Map<TopicPartition, Long> nextOffsets)
            throws SQLException {
        try (Connection c = connect()) {
            c.setAutoCommit(false);
            Map<TopicPartition, Long> stored = lockStoredOffsets(c, nextOffsets.keySet()); // SELECT ... FOR UPDATE
            for (ConsumerRecord<String, byte[]> r : kept) {
                // a RETRY record below the stored offset was applied by an earlier transaction
                if (r.offset() >= stored.getOrDefault(new TopicPartition(r.topic(), r.partition()), 0L)) {
                    apply(c, r);
                }
            }
            storeOffsets(c, nextOffsets); // GREATEST(stored, next)
            c.commit();
        }
    }

    @Override
    public Map<TopicPartition, Long> storedOffsets(Collection<TopicPartition> partitions) throws SQLException {
        try (Connection c = connect()) {
            return readStoredOffsets(c, partitions); // the loop seeks there on assignment
        }
    }
}

/** docs/share-groups.md: the sink. */
final class OwnedCountsSink implements OwnedSink<String, byte[]> {
    @Override
    public void write(List<Delivery<String, byte[]>> kept, OwnedSink.Renewal renewal) throws SQLException {
        try (Connection c = connect()) {
            c.setAutoCommit(false);
            for (Delivery<String, byte[]> d : kept) {
                if (firstAttempt(c, d.owner())) { // INSERT ... ON CONFLICT (owner) ... RETURNING attempts
                    apply(c, d.record());
                }
            }
            c.commit();
        }
    }
}
