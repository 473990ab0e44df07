/**
 * Deduplication for Kafka consumers (artifact {@code dedup-kafka}): poll loops that claim each poll's records at
 * the agent, hand the kept ones to the user's sink, and keep re-processing exact by storing the offsets (or the
 * owners) in the sink's own transaction. Kafka is {@code provided}: at run time the library brings {@code
 * dedup-client} alone.
 *
 * <p>What a user writes against: {@link dev.dedup.kafka.DedupConsumerLoop} (a {@code KafkaConsumer} group) with a
 * {@link dev.dedup.kafka.TransactionalSink}; {@link dev.dedup.kafka.DedupShareConsumerLoop} (a share group, KIP-932)
 * with an {@link dev.dedup.kafka.OwnedSink} receiving {@link dev.dedup.kafka.Delivery deliveries}; and {@link
 * dev.dedup.kafka.MessageIds}, the id from a header, never the record key. The rest of the package (settings,
 * acknowledgements) is not public.
 */
package dev.dedup.kafka;
