/**
 * The Redis store, {@link dev.dedup.agent.store.redis.RedisStore}: it checks the shards at start and routes each
 * namespace's batches to its layout in the shard list ({@code ShardList}); while a change of the list is declared,
 * in the previous or the current list ({@code ShardListChange}, which wraps two {@code ShardList}s, so that no
 * layout knows of a change). Four packages, each one idea, each using only those listed after it:
 *
 * <ul>
 *   <li>{@code layout}: how claims are kept. {@code FingerprintTables} (tables of string buckets chosen by the
 *       id: {@code FingerprintTable} holds a table's keys, each shard's state of it and its records' bytes; claimed
 *       by the {@code claims.lua} calls of {@code ClaimCalls}, grown and shrunk by linear hashing in {@code
 *       TableResizing} with {@code table.lua}, swept by {@code RedisSweeper}), {@code TimeBuckets} (string buckets
 *       of one event second, {@code timed.lua}), {@code RedisRanges} (committed offset ranges), and {@code
 *       NamespaceRecords}, which keeps each namespace in one table.
 *   <li>{@code gather}: how a layout's calls reach a shard. The layout fills a {@code CallPlan} (its items in
 *       calls per shard, each bucket's key named once a call) and finishes each call with its arguments ({@code
 *       ScriptCall}); {@code CallGathering} merges concurrent batches' calls to one shard, knowing of a script only
 *       where its arguments hold the items ({@code CallForm}).
 *   <li>{@code topology}: which shard of a list an id goes to ({@code Routing}), the lists an agent was started
 *       with ({@code ShardLists}), and the shards' own record of the shard list they belong to, with its declared
 *       changes ({@code Topology}).
 *   <li>{@code access}: talking to Redis. At its root the one narrow port {@code RedisPort} and the terms it
 *       speaks in: the scripts ({@code RedisPort.Script}, their Lua in the resource folder {@code
 *       dev/dedup/agent/store/redis/}), what each call is to the port ({@code RedisPort.Op}), how every key name
 *       starts ({@code RedisKeys}: the prefix, a Cluster group's hash tag; each key family is named in the
 *       package that owns it), {@code RedisFailures}, where Redis errors become {@link
 *       dev.dedup.agent.store.StoreUnavailableException}s, the one retry loop ({@code Retry}), and the tier's
 *       clocks and thread ({@code Housekeeping}). Under it, {@code connections}: {@code LettuceRedis}, the only
 *       class holding Lettuce clients (scripts by SHA with the {@code NOSCRIPT} reload, {@code WAIT}, a Cluster's
 *       {@code TRYAGAIN} retries, subscriptions, call timers), for standalone and Sentinel shards ({@code
 *       ShardNodes}) and a Cluster ({@code ClusterNodes}) alike; and {@code health}: each shard's memory and the
 *       start's eviction check.
 * </ul>
 *
 * <p>Nothing here blocks a caller's thread after start.
 */
package dev.dedup.agent.store.redis;
