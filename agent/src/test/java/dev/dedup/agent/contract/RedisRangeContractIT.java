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

/** The ranges contract against one Redis shard started by the test. */
class RedisRangeContractIT extends RangeContractSuite {

    @TempDir
    static Path dir;

    private final List<RedisServer> servers = new ArrayList<>();

    protected int shards() {
        return 1;
    }

    @Override
    protected Agent startAgent(FakeClock clock) {
        return ContractAgents.redis(
                dir,
                servers,
                RedisServer.Binary.REDIS,
                shards(),
                NearCacheOptions.DEFAULT_MAX_ENTRIES,
                MAX_BATCH,
                MAX_BODY,
                windows(),
                clock);
    }

    @AfterAll
    void stopServers() {
        servers.forEach(RedisServer::close);
    }
}
