/**
 * Which shard of a list holds an id ({@link dev.dedup.agent.store.redis.topology.Routing}), the lists an agent
 * was started with ({@link dev.dedup.agent.store.redis.topology.ShardLists}), and the shards' own record of the
 * deployment and shard list they belong to, with its declared changes
 * ({@link dev.dedup.agent.store.redis.topology.Topology}), so that an agent with another list refuses to start;
 * {@code TopologyRecord} says what a record holds and under which key.
 * What is decided from the records is decided without Redis, each in a class of its own: the start ({@code
 * StartPlan}), the watch ({@code RecordWatch}) and the cut-over ({@code CutOver}); {@code TopologyStart} and
 * {@code Topology} read and write what they say. {@link dev.dedup.agent.store.redis.topology.GuardedPort} is the
 * port every layout calls through, each guarded call carrying the record its shard must hold.
 */
package dev.dedup.agent.store.redis.topology;
