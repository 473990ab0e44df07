package dev.dedup.agent.contract;

import dev.dedup.agent.testing.RedisServer;
import java.io.IOException;
import org.junit.jupiter.api.Test;

/**
 * The contract against one Valkey 8 shard ({@code valkey-server}, which CI installs from Debian's
 * bookworm-backports), with the near-cache in front: the agent's scripts and replies must work unchanged on
 * Valkey. Fails, not skips, when {@code valkey-server} is missing.
 */
class ValkeyContractIT extends RedisContractIT {

    @Override
    protected RedisServer.Binary binary() {
        return RedisServer.Binary.VALKEY;
    }

    @Test
    void everyShardIsValkey8() throws IOException {
        assertEveryShardIs("Valkey 8", "valkey_version:8.");
    }
}
