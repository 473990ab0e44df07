package dev.dedup.agent.contract;

/** The contract against a Redis Cluster with every namespace filed by event time. */
class RedisClusterEventTimeContractIT extends RedisClusterContractIT {

    @Override
    protected boolean eventTimes() {
        return true;
    }
}
