package dev.dedup.agent.contract;

import dev.dedup.agent.Agent;
import dev.dedup.agent.config.AgentOptions;
import dev.dedup.agent.config.EmbeddedStoreOptions;
import dev.dedup.agent.config.HttpOptions;
import dev.dedup.agent.testing.FakeClock;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.io.TempDir;

/** The contract against the embedded store. */
class EmbeddedContractTest extends ClaimContractSuite {

    @TempDir
    static Path dataDir;

    @Override
    protected Agent startAgent(FakeClock clock) {
        return Agent.start(
                new AgentOptions(
                        new HttpOptions(
                                "127.0.0.1", 0, MAX_BATCH, MAX_BODY, Duration.ofSeconds(30), 2, Duration.ofSeconds(2)),
                        new EmbeddedStoreOptions(dataDir, 1 << 16, 8),
                        windows()),
                clock);
    }
}
