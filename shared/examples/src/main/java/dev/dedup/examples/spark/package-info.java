/**
 * A Spark Structured Streaming job built on {@code dedup-spark}: it reads a Kafka topic in micro-batches, drops the
 * duplicates with {@link dev.dedup.spark.DedupTransform} (one claim request per chunk on the executors, id from a
 * record header, owner {@code topic:partition:offset}), parses the kept values into its own events, aggregates them,
 * and writes the aggregates to PostgreSQL in one transaction per micro-batch ({@link
 * dev.dedup.examples.spark.SparkDedupJob}). A retried task claims the same owners again and gets {@code RETRY}: its
 * records are processed again, never lost. The same compiled classes run on Spark 3.5 (Scala 2.12 and 2.13) and
 * Spark 4.
 */
package dev.dedup.examples.spark;
