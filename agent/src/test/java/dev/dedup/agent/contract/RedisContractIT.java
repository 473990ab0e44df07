package dev.dedup.agent.contract;

import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dedup.agent.config.NearCacheOptions;
import dev.dedup.agent.testing.RedisServer;
import java.io.IOException;

/** The contract against one Redis shard started by the test, with the near-cache in front. */
class RedisContractIT extends ClaimContractSuite {

    private ContractAgents.Shards redis;

    protected int shards() {
        return 1;
    }

    protected long nearCacheSize() {
        return NearCacheOptions.DEFAULT_MAX_ENTRIES;
    }

    /** Whether the shards let the agent in only as the user the shipped tier gives it. */
    protected boolean acl() {
        return false;
    }

    /** The server program of the shards. */
    protected RedisServer.Binary binary() {
        return RedisServer.Binary.REDIS;
    }

    @Override
    protected ContractAgents.Store store() {
        redis = new ContractAgents.Shards(binary(), shards(), nearCacheSize(), acl());
        return redis;
    }

    /** The shards, once started. */
    protected ContractAgents.Shards shardServers() {
        return redis;
    }

    /** Fails unless every shard's {@code INFO server} holds {@code version}, e.g. {@code redis_version:8.0.}. */
    protected void assertEveryShardIs(String name, String version) throws IOException {
        for (RedisServer server : redis.servers()) {
            String info = server.command("INFO", "server");
            assertTrue(info.contains(version), () -> "not " + name + ": " + info);
        }
    }
}
