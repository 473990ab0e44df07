package dev.dedup.examples.docs;

import dev.dedup.spark.DedupTransform;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;

/**
 * The Java blocks of {@code docs/spark.md}, line for line, compiled here; {@link DocsCodeBlocksTest} fails when a
 * block of the page is found in no compiled source.
 */
final class SparkSnippets {

    /** spark.md: the whole change to a job. */
    static Dataset<Row> wholeChange(Dataset<Row> batch) {
        DedupTransform dedup = DedupTransform.builder("clicks") // one namespace for every job whose copies must meet
                .idFromHeader("message-id") // where the producer put the message's id; never the record key
                .build(); // the owner: the Kafka source's topic, partition and offset

        Dataset<Row> unique = dedup.claimAndKeep(batch); // in foreachBatch, on a streaming Dataset, or in a batch job
        return unique;
    }

    private SparkSnippets() {}
}
