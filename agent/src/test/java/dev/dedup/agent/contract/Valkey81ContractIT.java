package dev.dedup.agent.contract;

import dev.dedup.agent.testing.RedisServer;
import java.io.IOException;
import org.junit.jupiter.api.Test;

/**
 * The contract against one Valkey 8.1 shard ({@code valkey-server-8.1}: Debian trixie's valkey-server, which .ci/run
 * provides), with the near-cache in front. Fails, not skips, when {@code valkey-server-8.1} is missing.
 */
class Valkey81ContractIT extends RedisContractIT {

    @Override
    protected RedisServer.Binary binary() {
        return RedisServer.Binary.VALKEY_8_1;
    }

    @Test
    void everyShardIsValkey81() throws IOException {
        assertEveryShardIs("Valkey 8.1", "valkey_version:8.1.");
    }
}
