/**
 * Where an id is kept: consistent hashing of buckets onto shards. Pure functions of fingerprints, shared
 * by the agent and the tools that must agree with it (artifact {@code dedup-codec}); which buckets and
 * shards exist, and what is stored in them, is the agent's store's business, not this package's.
 */
package dev.dedup.routing;
