/**
 * How a batch becomes script calls: split per shard ({@link dev.dedup.agent.store.redis.gather.ShardCalls}),
 * then merged with other batches' calls to the same shard
 * ({@link dev.dedup.agent.store.redis.gather.CallGathering}), so that what a call costs a shard is paid once
 * for many batches.
 */
package dev.dedup.agent.store.redis.gather;
