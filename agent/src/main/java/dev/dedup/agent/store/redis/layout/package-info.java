/**
 * How claims are kept in Redis: fingerprint tables that size themselves
 * ({@link dev.dedup.agent.store.redis.layout.FingerprintTables}, built of a record format, one table's keys and
 * states, the claim calls and the table's resizing, and swept by
 * {@link dev.dedup.agent.store.redis.layout.RedisSweeper}), event-time buckets
 * ({@link dev.dedup.agent.store.redis.layout.TimeBuckets}), committed ranges
 * ({@link dev.dedup.agent.store.redis.layout.RedisRanges}), and the record of which one keeps each namespace
 * ({@link dev.dedup.agent.store.redis.layout.NamespaceRecords}). Each class names the keys it keeps (a table's
 * state, set and buckets in {@code FingerprintTable}, sweep markers in {@code RedisSweeper}, ranges in {@code
 * RedisRanges}, time buckets in {@code TimeBuckets}), after the prefix and hash tag {@code RedisKeys} gives.
 */
package dev.dedup.agent.store.redis.layout;
