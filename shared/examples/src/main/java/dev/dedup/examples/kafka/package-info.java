/**
 * The name of the header the examples' producers put the message id in ({@link dev.dedup.examples.kafka.MessageIds}),
 * for the Spark job. The Kafka consumer loops are a library, {@code dev.dedup:dedup-kafka} ({@link
 * dev.dedup.kafka.DedupingConsumer}, {@link dev.dedup.kafka.DedupingShareConsumer}); the examples' sink implements
 * their sink interfaces ({@link dev.dedup.examples.sink.AggregateSink}).
 */
package dev.dedup.examples.kafka;
