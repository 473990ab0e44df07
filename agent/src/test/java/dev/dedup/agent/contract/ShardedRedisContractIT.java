package dev.dedup.agent.contract;

/** The contract against three Redis shards, with the near-cache in front. */
class ShardedRedisContractIT extends RedisContractIT {

    @Override
    protected int shards() {
        return 3;
    }
}
