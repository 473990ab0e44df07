/**
 * Deduplication for Kafka Streams (artifact {@code dedup-kafka-streams}): {@link dev.dedup.kafka.streams.Dedup}, a
 * processor supplier a topology adds right after a source, which claims each record at the agent and forwards the
 * first copy of each message. Kafka Streams is {@code provided}: at run time the library brings {@code dedup-client}
 * alone.
 */
package dev.dedup.kafka.streams;
