/**
 * Talking to Redis: the port every layout calls through ({@link dev.dedup.agent.store.redis.access.RedisPort}),
 * its Lettuce implementations for shards and for a Cluster, the scripts, the key names, memory and eviction
 * checks, and the translation of Redis errors into store failures; and the tier's clocks and housekeeping thread
 * ({@link dev.dedup.agent.store.redis.access.Housekeeping}), which the store is given.
 */
package dev.dedup.agent.store.redis.access;
