package dev.dedup.agent.contract;

import dev.dedup.agent.Agent;
import dev.dedup.agent.config.NearCacheOptions;
import dev.dedup.agent.testing.FakeClock;
import dev.dedup.agent.testing.RedisServer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.io.TempDir;

/** The contract against one Redis shard started by the test, with the near-cache in front. */
class RedisContractIT extends ClaimContractSuite {

    @TempDir
    static Path dir;

    protected final List<RedisServer> servers = new ArrayList<>();

    protected int shards() {
        return 1;
    }

    protected long nearCacheSize() {
        return NearCacheOptions.DEFAULT_MAX_ENTRIES;
    }

    /** The server program of the shards. */
    protected RedisServer.Binary binary() {
        return RedisServer.Binary.REDIS;
    }

    @Override
    protected Agent startAgent(FakeClock clock) {
        return ContractAgents.redis(
                dir, servers, binary(), shards(), nearCacheSize(), MAX_BATCH, MAX_BODY, windows(), clock);
    }

    @AfterAll
    void stopServers() {
        servers.forEach(RedisServer::close);
    }
}
