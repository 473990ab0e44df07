package dev.dedup.agent.contract;

import dev.dedup.agent.testing.RedisServer;
import java.io.IOException;
import org.junit.jupiter.api.Test;

/**
 * The contract against one Redis 8.0 shard, the major version deploy/kubernetes runs ({@code redis-server-8.0}:
 * Debian trixie's redis-server, which .ci/run provides), with the near-cache in front. Fails, not skips, when
 * {@code redis-server-8.0} is missing.
 */
class Redis80ContractIT extends RedisContractIT {

    @Override
    protected RedisServer.Binary binary() {
        return RedisServer.Binary.REDIS_8_0;
    }

    @Test
    void everyShardIsRedis80() throws IOException {
        assertEveryShardIs("Redis 8.0", "redis_version:8.0.");
    }
}
