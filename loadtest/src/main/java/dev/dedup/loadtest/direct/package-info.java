/**
 * The baseline of the benchmark: the same scenarios sent straight to Redis with Tapjoy's published design
 * ("Real-Time Deduping At Scale", Aaron Pfeifer, 2017), no agent in between.
 * {@link dev.dedup.loadtest.direct.TapjoyBuckets} is its layout (hash buckets of about 100 ids keyed by the
 * message's second and a slice, shards chosen by a hash of the bucket), {@link
 * dev.dedup.loadtest.direct.TapjoyTransport} its client (one script call per bucket, pipelined, shards in
 * parallel) and {@code tapjoy.lua} its script. Nothing of the agent is used here.
 */
package dev.dedup.loadtest.direct;
