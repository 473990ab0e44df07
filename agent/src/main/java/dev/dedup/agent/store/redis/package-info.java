/**
 * The Redis store. {@link dev.dedup.agent.store.redis.RedisStore} picks a layout per namespace:
 * {@code FingerprintTables} (tables of string buckets chosen by the id, grown by linear hashing,
 * {@code claims.lua} and {@code table.lua}, swept by {@code RedisSweeper}) or {@code TimeBuckets} (string
 * buckets of one event second, {@code timed.lua}); {@code NamespaceRecords} keeps each namespace in one. Both
 * split a batch into one script call per shard ({@code ShardCalls}) and make it through the one narrow
 * port {@code RedisPort}, which {@code LettuceShards} implements: the only class holding Lettuce clients
 * (connections, scripts by SHA with the {@code NOSCRIPT} reload, {@code WAIT}, subscriptions, call
 * timers). Redis errors become {@link dev.dedup.agent.store.StoreUnavailableException}s in one place,
 * {@code RedisFailures}. Nothing here blocks a caller's thread after start.
 */
package dev.dedup.agent.store.redis;
