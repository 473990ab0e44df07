/**
 * Deduplication for Flink DataStream jobs (artifact {@code dedup-flink}): {@link dev.dedup.flink.ClaimableDeserializer},
 * the Kafka source's deserializer that gives each record its message id, owner and timestamp, and {@link
 * dev.dedup.flink.Dedup}, the operator that claims them at the agent and forwards the first copy of each message.
 * Flink and its Kafka connector are {@code provided}: at run time the library brings {@code dedup-client} alone.
 */
package dev.dedup.flink;
