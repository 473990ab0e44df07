package dev.dedup.agent.contract;

/** The ranges contract against three Redis shards. */
class ShardedRedisRangeContractIT extends RedisRangeContractIT {

    @Override
    protected int shards() {
        return 3;
    }
}
