package dev.dedup.agent.contract;

import dev.dedup.agent.Agent;
import dev.dedup.agent.testing.FakeClock;
import java.nio.file.Path;
import org.junit.jupiter.api.io.TempDir;

/** The ranges contract against the embedded store. */
class EmbeddedRangeContractTest extends RangeContractSuite {

    @TempDir
    static Path dataDir;

    @Override
    protected Agent startAgent(FakeClock clock) {
        return ContractAgents.embedded(dataDir, MAX_BATCH, MAX_BODY, windows(), clock);
    }
}
