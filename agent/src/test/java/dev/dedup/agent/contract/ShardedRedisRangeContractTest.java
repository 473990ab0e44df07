package dev.dedup.agent.contract;

/** The ranges contract against three Redis shards. */
class ShardedRedisRangeContractTest extends RedisRangeContractTest {

    @Override
    protected int shards() {
        return 3;
    }
}
