/**
 * The Redis store: claims in hash buckets sharded by jump hash, written by one Lua script
 * ({@code dedup.lua}) per shard per batch; Redis errors translated to
 * {@link dev.dedup.agent.store.StoreUnavailableException} in one place. Lettuce is used asynchronously;
 * nothing here blocks a caller's thread after start.
 */
package dev.dedup.agent.store.redis;
