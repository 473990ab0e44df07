/**
 * Kafka consumer loops that claim before they process: {@link dev.dedup.examples.kafka.DedupingConsumer} (a
 * {@code KafkaConsumer} group reading partitions in order; owner {@code partition:offset}) and {@link
 * dev.dedup.examples.kafka.DedupingShareConsumer} (a share group, KIP-932, where several members read one partition
 * and there is no committed offset to deduplicate on; owner {@code topic:partition:offset}).
 */
package dev.dedup.examples.kafka;
