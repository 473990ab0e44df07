/**
 * The pipeline benchmark ({@code loadtest/bench-pipeline.sh}): Kafka → Spark Structured Streaming in local mode →
 * PostgreSQL at a constant produce rate, once with {@code SparkDedupJob} claiming at the agent and once with Spark's
 * own {@code dropDuplicatesWithinWatermark} on the RocksDB state store, its watermark past the copies' longest delay.
 * {@link dev.dedup.examples.bench.PipelineBench} runs the sides one after the other against one KRaft broker, each
 * Spark job in a JVM of its own ({@link dev.dedup.examples.bench.BenchQuery}) so that its heap, RSS and CPU are its
 * own, and checks every side's sink against the ledger of the stream. The engine benchmark
 * ({@code loadtest/bench-engines.sh}, in shared/examples/flink's {@code dev.dedup.examples.engines}) runs its Kafka
 * Streams application from here ({@link dev.dedup.examples.bench.StreamsBenchApp}), as Kafka Streams is on this
 * module's classpath, and reads {@code /proc} with {@link dev.dedup.examples.bench.Proc}. The test helpers of
 * {@code dev.dedup.examples.testing} start the parts; nothing here is a library.
 */
package dev.dedup.examples.bench;
