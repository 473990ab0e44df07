/**
 * Where an id is kept: consistent hashing of buckets onto shards. Pure functions of fingerprints, shared
 * by the agent and the tools that must agree with it.
 */
package dev.dedup.routing;
