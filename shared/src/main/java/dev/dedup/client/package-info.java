/**
 * The Java client for workers: {@link dev.dedup.client.DedupClient} claims and releases batches over the
 * binary format of the v1 contract, on {@code java.net.http} with no other dependency, and turns error
 * answers into {@link dev.dedup.client.DedupException}. No retry policy, no batching and no caching here:
 * the worker decides what a failed call means for its messages (the contract's answer is: do not skip them).
 */
package dev.dedup.client;
