package dev.dedup.agent.contract;

/** The contract against three Redis shards with every namespace filed by event time. */
class ShardedRedisEventTimeContractIT extends ShardedRedisContractIT {

    @Override
    protected boolean eventTimes() {
        return true;
    }
}
