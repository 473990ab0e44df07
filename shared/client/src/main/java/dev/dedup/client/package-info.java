/**
 * The Java client for workers (artifact {@code dedup-client}): {@link dev.dedup.client.DedupClient} claims
 * and releases batches over the binary format of the v1 contract, on {@code java.net.http} and {@code
 * dedup-wire} with no other dependency (the build refuses any), and turns error answers into {@link
 * dev.dedup.client.DedupException}; the few JSON error bodies it reads go through a small strict reader of
 * its own. {@link dev.dedup.client.DedupClient#fromEnvironment()} finds the agent where the manifests tell
 * workers it is: {@code DEDUP_URL} and {@code DEDUP_TOKEN}. {@link dev.dedup.client.Owners} writes the owner of a
 * Kafka, Kinesis, SQS or RabbitMQ delivery one way, so that the workers of a namespace agree on it. {@link
 * dev.dedup.client.Claims} is the one retry policy: it sends a call the agent did not answer again, with the same
 * items, for a worker's patience, and never skips a message without a verdict. No batching and no caching here.
 *
 * <p>Compiled for Java 11, as {@code dedup-wire} is: it runs in a Java 11 or later JVM (a Spark executor's).
 */
package dev.dedup.client;
