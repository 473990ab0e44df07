package dev.dedup.agent.contract;

/** The contract against three Valkey 8 shards with every namespace filed by event time. */
class ShardedValkeyEventTimeContractIT extends ValkeyContractIT {

    @Override
    protected int shards() {
        return 3;
    }

    @Override
    protected boolean eventTimes() {
        return true;
    }
}
