/**
 * Kafka consumer loops that claim before they process: {@link dev.dedup.examples.kafka.DedupingConsumer} (a
 * {@code KafkaConsumer} group reading partitions in order) and {@link dev.dedup.examples.kafka.DedupingShareConsumer}
 * (a share group, KIP-932, where several members read one partition and there is no committed offset to deduplicate
 * on). Both take the message id where the producer put it ({@link dev.dedup.examples.kafka.MessageIds}: a header,
 * never the record key) and the owner from {@link dev.dedup.client.Owners#kafka}, {@code topic:partition:offset}.
 */
package dev.dedup.examples.kafka;
