/**
 * Which shard of a list holds an id ({@link dev.dedup.agent.store.redis.topology.Routing}), the lists an agent
 * was started with ({@link dev.dedup.agent.store.redis.topology.ShardLists}), and the shards' own record of
 * the deployment and shard list they belong to, with its declared changes
 * ({@link dev.dedup.agent.store.redis.topology.Topology}), so that an agent with another list refuses to start.
 */
package dev.dedup.agent.store.redis.topology;
