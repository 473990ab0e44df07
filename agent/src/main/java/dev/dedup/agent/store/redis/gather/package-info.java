/**
 * How a layout's script calls reach a shard: a batch's items planned into calls per shard
 * ({@link dev.dedup.agent.store.redis.gather.CallPlan}), which the layout finishes with their arguments
 * ({@link dev.dedup.agent.store.redis.gather.ScriptCall}), then merged with other batches' calls to the same shard
 * ({@link dev.dedup.agent.store.redis.gather.CallGathering}), so that what a call costs a shard is paid once for
 * many batches. Nothing here knows a layout: where a script's arguments hold the items is its
 * {@link dev.dedup.agent.store.redis.gather.CallForm}.
 */
package dev.dedup.agent.store.redis.gather;
