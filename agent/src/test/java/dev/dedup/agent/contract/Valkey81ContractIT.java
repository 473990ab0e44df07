package dev.dedup.agent.contract;

import static org.junit.jupiter.api.Assertions.assertTrue;

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
        for (RedisServer server : servers) {
            String info = server.command("INFO", "server");
            assertTrue(info.contains("valkey_version:8.1."), () -> "not Valkey 8.1: " + info);
        }
    }
}
