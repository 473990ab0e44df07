package dev.dedup.examples.docs;

import dev.dedup.client.Claims;
import dev.dedup.kafka.DedupConsumerLoop;
import dev.dedup.kafka.TransactionalSink;
import dev.dedup.spark.DedupTransform;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;

/**
 * The Java blocks of README.md's "In your job", line for line, compiled here; {@link DocsCodeBlocksTest} fails when
 * a block of the README is found in no compiled source.
 */
final class ReadmeSnippets {

    /** README.md, "In your job": a Spark job's two lines. */
    static Dataset<Row> spark(Dataset<Row> batch) {
        DedupTransform dedup =
                DedupTransform.builder("clicks").idFromHeader("message-id").build();
        Dataset<Row> unique = dedup.claimAndKeep(batch); // in foreachBatch, on a streaming Dataset, or in a batch job
        return unique;
    }

    /** README.md, "In your job": a Kafka consumer's loop. */
    static void kafka(Consumer<String, byte[]> consumer, TransactionalSink<String, byte[]> sink) {
        DedupConsumerLoop<String, byte[]> loop = DedupConsumerLoop.builder(consumer, Claims.fromEnvironment("clicks"))
                .topics("clicks")
                .idFromHeader("message-id")
                .sink(sink) // writes the kept records and the next offsets in one transaction
                .build();
        loop.run();
    }

    private ReadmeSnippets() {}
}
