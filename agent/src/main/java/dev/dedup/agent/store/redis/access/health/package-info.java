/**
 * Whether the shards can keep claims: the start's eviction check ({@code EvictionPolicy}, which refuses a server
 * that may evict claims) and each shard's memory, read on the housekeeping thread for gauges ({@code
 * ShardMemory}). Reads through the port; writes nothing to Redis.
 */
package dev.dedup.agent.store.redis.access.health;
