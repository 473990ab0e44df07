package dev.dedup.examples.docs;

import dev.dedup.client.Claims;
import dev.dedup.kafka.DedupConsumerLoop;
import dev.dedup.kafka.MessageIds;
import dev.dedup.kafka.sink.JdbcSink;
import dev.dedup.kafka.sink.KafkaTransactionSink;
import java.sql.PreparedStatement;
import javax.sql.DataSource;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;

/** The Java blocks of docs/sinks.md, compiled (DocsCodeBlocksTest finds them here). */
final class SinkSnippets {

    static DedupConsumerLoop<String, byte[]> jdbc(KafkaConsumer<String, byte[]> consumer, DataSource dataSource) {
        JdbcSink<String, byte[]> sink = JdbcSink.<String, byte[]>builder(dataSource::getConnection, "clicks-consumer")
                .writer((connection, records) -> { // in the sink's transaction: the records not applied before
                    try (PreparedStatement insert =
                            connection.prepareStatement("INSERT INTO clicks (id, body) VALUES (?, ?)")) {
                        for (ConsumerRecord<String, byte[]> r : records) {
                            insert.setString(1, MessageIds.header(r, "message-id"));
                            insert.setBytes(2, r.value());
                            insert.addBatch();
                        }
                        insert.executeBatch();
                    }
                })
                .build();
        DedupConsumerLoop<String, byte[]> loop = DedupConsumerLoop.builder(consumer, Claims.fromEnvironment("clicks"))
                .topics("clicks")
                .idFromHeader("message-id")
                .sink(sink) // the rows and the next offsets in one transaction; where to resume, on assignment
                .build();
        return loop;
    }

    static KafkaTransactionSink<String, byte[], String, byte[]> kafka(
            KafkaProducer<String, byte[]> producer, KafkaConsumer<String, byte[]> consumer) {
        KafkaTransactionSink<String, byte[], String, byte[]> sink =
                KafkaTransactionSink.<String, byte[], String, byte[]>builder(
                                producer,
                                consumer) // the producer's transactional.id set, one per consumer; build() inits it
                        .output(r -> new ProducerRecord<>("clicks-unique", null, r.key(), r.value(), r.headers()))
                        .build();
        return sink;
    }

    private SinkSnippets() {}
}
