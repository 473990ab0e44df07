package dev.dedup.agent.contract;

import dev.dedup.agent.config.RedisOptions;

/**
 * The contract against a Redis Cluster of three masters, each with a replica, started by the test: claims
 * spread over {@link RedisOptions#DEFAULT_CLUSTER_GROUPS} groups, each one hash slot, with the near-cache in
 * front.
 */
class RedisClusterContractIT extends ClaimContractSuite {

    @Override
    protected ContractAgents.Store store() {
        return new ContractAgents.Cluster();
    }
}
