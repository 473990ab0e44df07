/**
 * Talking to Redis: the port every layout calls through ({@link dev.dedup.agent.store.redis.access.RedisPort}),
 * its Lettuce implementations for shards and for a Cluster, the scripts, the key names, memory and eviction
 * checks, and the translation of Redis errors into store failures.
 */
package dev.dedup.agent.store.redis.access;
