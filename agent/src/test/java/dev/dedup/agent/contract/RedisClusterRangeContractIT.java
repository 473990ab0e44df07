package dev.dedup.agent.contract;

/** The ranges contract against a Redis Cluster of three masters with a replica each. */
class RedisClusterRangeContractIT extends RangeContractSuite {

    @Override
    protected ContractAgents.Store store() {
        return new ContractAgents.Cluster();
    }
}
