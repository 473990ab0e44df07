package dev.dedup.agent.store.redis;

import dev.dedup.agent.store.ClaimPolicy;
import dev.dedup.agent.store.redis.layout.FingerprintTables;
import dev.dedup.agent.store.redis.layout.RedisRanges;
import dev.dedup.agent.store.redis.layout.TimeBuckets;
import dev.dedup.agent.store.redis.topology.Routing;
import dev.dedup.codec.Batch;
import dev.dedup.codec.RangeRequest;
import dev.dedup.wire.SequenceRange;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionStage;

/**
 * Claims, releases and ranges in one shard list, once the batch's namespace is agreed: each layout's calls placed
 * by its {@link Routing}, a namespace filed by event time in {@link TimeBuckets}, every other in {@link
 * FingerprintTables}. While a change of the list is declared, the store holds a {@code ShardListChange}: this list
 * as the current one, which also answers from the previous. Each call completes with a {@link
 * dev.dedup.agent.store.StoreUnavailableException} when a shard it needs fails.
 */
class ShardList {

    private final Routing routing;
    /** Where a time bucket lives: by {@link #routing}, or during a change by its event second. */
    private final TimeBuckets.Placement timeShards;

    private final FingerprintTables fingerprints;
    private final TimeBuckets times;
    private final RedisRanges ranges;

    ShardList(Routing routing, FingerprintTables fingerprints, TimeBuckets times, RedisRanges ranges) {
        this(routing, (hash, second) -> routing.shard(hash), fingerprints, times, ranges);
    }

    /** The same with time buckets placed by {@code timeShards}. */
    ShardList(
            Routing routing,
            TimeBuckets.Placement timeShards,
            FingerprintTables fingerprints,
            TimeBuckets times,
            RedisRanges ranges) {
        this.routing = routing;
        this.timeShards = timeShards;
        this.fingerprints = fingerprints;
        this.times = times;
        this.ranges = ranges;
    }

    CompletionStage<byte[]> claim(Batch batch, ClaimPolicy policy, long nowMillis) {
        return policy.timeBuckets()
                ? times.claim(timeShards, batch, policy, nowMillis)
                : fingerprints.claim(routing, batch, policy, nowMillis);
    }

    CompletionStage<byte[]> release(Batch batch, ClaimPolicy policy, long nowMillis) {
        return policy.timeBuckets()
                ? times.release(timeShards, batch, policy, nowMillis)
                : fingerprints.release(routing, batch, policy, nowMillis);
    }

    CompletionStage<List<List<SequenceRange>>> checkRanges(RangeRequest request, long nowMillis) {
        return ranges.check(routing, request, nowMillis);
    }

    CompletionStage<Void> commitRanges(RangeRequest request, ClaimPolicy policy, long nowMillis) {
        return ranges.commit(routing, request, policy, nowMillis);
    }

    /** Adds its part to the store's {@code /v1/stats}: one list, nothing beyond its shards'. */
    void stats(Map<String, Object> stats) {}
}
