package dev.dedup.agent.contract;

import dev.dedup.agent.config.WindowOptions;

/** The contract against a Redis Cluster with every namespace filed by event time. */
class RedisClusterEventTimeContractIT extends RedisClusterContractIT {

    @Override
    protected boolean eventTimes() {
        return true;
    }

    @Override
    protected WindowOptions windows() {
        return everyNamespaceByEventTime();
    }
}
