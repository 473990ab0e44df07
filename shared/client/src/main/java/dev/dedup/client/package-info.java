/**
 * The Java client for workers (artifact {@code dedup-client}): {@link dev.dedup.client.DedupClient} claims
 * and releases batches over the binary format of the v1 contract, on {@code java.net.http} and {@code
 * dedup-wire} with no other dependency (the build refuses any), and turns error answers into {@link
 * dev.dedup.client.DedupException}; the few JSON error bodies it reads go through a small strict reader of
 * its own. {@link dev.dedup.client.DedupClient#fromEnvironment()} finds the agent where the manifests tell
 * workers it is: {@code DEDUP_URL} and {@code DEDUP_TOKEN}. {@link dev.dedup.client.Owners} writes the owner of a
 * Kafka, Kinesis, SQS or RabbitMQ delivery one way, so that the workers of a namespace agree on it. No retry policy, no batching and no caching here: the worker decides what a failed call means for
 * its messages (the contract's answer is: do not skip them).
 *
 * <p>Compiled for Java 11, as {@code dedup-wire} is: it runs in a Java 11 or later JVM (a Spark executor's).
 */
package dev.dedup.client;
