package dev.dedup.agent.contract;

/** The contract against one Redis shard with the near-cache off: every answer comes from the script. */
class RedisWithoutNearCacheContractIT extends RedisContractIT {

    @Override
    protected long nearCacheSize() {
        return 0;
    }
}
