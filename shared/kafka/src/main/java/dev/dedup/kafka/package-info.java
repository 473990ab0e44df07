/**
 * Deduplication for Kafka consumers (artifact {@code dedup-kafka}): poll loops that claim each poll's records at
 * the agent, hand the kept ones to the user's sink, and keep re-processing exact by storing the offsets (or the
 * owners) in the sink's own transaction. Kafka is {@code provided}: at run time the library brings {@code
 * dedup-client} alone.
 */
package dev.dedup.kafka;
