package dev.dedup.agent.contract;

/** The contract against three Valkey 8 shards, with the near-cache in front. */
class ShardedValkeyContractIT extends ValkeyContractIT {

    @Override
    protected int shards() {
        return 3;
    }
}
