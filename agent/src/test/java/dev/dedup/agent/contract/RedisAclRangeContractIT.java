package dev.dedup.agent.contract;

import dev.dedup.agent.config.NearCacheOptions;
import dev.dedup.agent.testing.RedisServer;
import org.junit.jupiter.api.AfterAll;

/**
 * The ranges contract against one Redis shard that lets the agent in only as the user the shipped tier gives it
 * ({@link dev.dedup.agent.testing.RedisAcl#AGENT}); the server's {@code ACL LOG} is empty at the end.
 */
class RedisAclRangeContractIT extends RangeContractSuite {

    private ContractAgents.Shards redis;

    @Override
    protected ContractAgents.Store store() {
        redis = new ContractAgents.Shards(RedisServer.Binary.REDIS, 1, NearCacheOptions.DEFAULT_MAX_ENTRIES, true);
        return redis;
    }

    /** Runs before the suite stops the shard. */
    @AfterAll
    void nothingWasRefused() throws Exception {
        redis.assertNothingRefused();
    }
}
