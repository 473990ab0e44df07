package dev.dedup.agent.contract;

/** The contract against three Valkey 8 shards with every namespace filed by event time. */
class ShardedValkeyEventTimeContractIT extends ShardedValkeyContractIT {

    @Override
    protected boolean eventTimes() {
        return true;
    }
}
