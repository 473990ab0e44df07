/**
 * A Spark Structured Streaming job that reads a Kafka topic in micro-batches, claims each partition's records at the
 * executor's agent ({@link dev.dedup.examples.spark.ClaimPartition}: one claim request per chunk, id from a record
 * header, owner {@code topic:partition:offset}, event time from the record's timestamp), drops the duplicates,
 * aggregates, and writes the
 * aggregates to PostgreSQL in one transaction per micro-batch ({@link dev.dedup.examples.spark.SparkDedupJob}).
 * A retried task claims the same owners again and gets {@code RETRY}: its records are processed again, never lost.
 * The same compiled classes run on Spark 3.5 (Scala 2.12 and 2.13) and Spark 4.
 */
package dev.dedup.examples.spark;
