package dev.dedup.agent.contract;

import dev.dedup.agent.config.NearCacheOptions;
import dev.dedup.agent.testing.RedisServer;

/** The ranges contract against one Redis shard started by the test. */
class RedisRangeContractIT extends RangeContractSuite {

    protected int shards() {
        return 1;
    }

    @Override
    protected ContractAgents.Store store() {
        return new ContractAgents.Shards(RedisServer.Binary.REDIS, shards(), NearCacheOptions.DEFAULT_MAX_ENTRIES);
    }
}
