/**
 * What the rest of the Redis tier may ask of Redis, and in what terms: the one port every layout calls through ({@link
 * dev.dedup.agent.store.redis.access.RedisPort}) with the replies it gives ({@code MemoryInfo}, {@code
 * EvictionReading}), the calls it takes (its nested {@code Op}: timer tag and whether it waits for replicas, a {@code
 * Durability}) and the scripts it runs (its nested {@code Script}) with the modes their first argument selects, how
 * every key name starts ({@code RedisKeys}: the prefix, a Cluster group's hash tag, the release channel; the layouts
 * and the topology name their own keys with it), the codes of Redis's error replies and what each makes of a call ({@code
 * RedisFailures}), the one loop by which a momentary failure is tried again, pausing on the housekeeping thread ({@code
 * Retry}), per-shard counters, and the tier's clocks and housekeeping thread ({@link
 * dev.dedup.agent.store.redis.access.Housekeeping}), which the store is given.
 *
 * <p>Nothing here names Lettuce: the port's implementation is in {@code connections}, the start's memory and eviction
 * checks in {@code health}; both use this package, and nothing here uses them.
 */
package dev.dedup.agent.store.redis.access;
