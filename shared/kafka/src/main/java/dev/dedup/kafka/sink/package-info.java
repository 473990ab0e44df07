/**
 * Ready sinks for the consumer loops: {@link dev.dedup.kafka.sink.JdbcSink}, the output and the next offsets in one
 * transaction of any JDBC database, and {@link dev.dedup.kafka.sink.KafkaTransactionSink}, the output records and the
 * consumer's offsets in one Kafka transaction. A sink of your own implements {@link dev.dedup.kafka.TransactionalSink} (or
 * {@link dev.dedup.kafka.OwnedSink} for a share group) the same way.
 */
package dev.dedup.kafka.sink;
