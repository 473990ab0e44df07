package dev.dedup.agent.store.redis;

import dev.dedup.agent.store.ClaimPolicy;
import dev.dedup.codec.Batch;
import dev.dedup.codec.RangeRequest;
import dev.dedup.wire.SequenceRange;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionStage;

/**
 * What {@link RedisStore} asks of the shards for claims, releases and ranges, once the batch's namespace is agreed:
 * {@link ShardList} over one shard list, or {@link ShardListChange} over two while a change of the list is declared.
 * Each completes with a {@link dev.dedup.agent.store.StoreUnavailableException} when a shard it needs fails.
 */
interface RedisClaims {

    CompletionStage<byte[]> claim(Batch batch, ClaimPolicy policy, long nowMillis);

    CompletionStage<byte[]> release(Batch batch, ClaimPolicy policy, long nowMillis);

    CompletionStage<List<List<SequenceRange>>> checkRanges(RangeRequest request, long nowMillis);

    CompletionStage<Void> commitRanges(RangeRequest request, ClaimPolicy policy, long nowMillis);

    /** Adds its part to the store's {@code /v1/stats}. */
    void stats(Map<String, Object> stats);
}
