package dev.dedup.agent.contract;

import dev.dedup.agent.Agent;
import dev.dedup.agent.testing.AgentHttp;
import dev.dedup.agent.testing.FakeClock;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;

/**
 * What the contract suites share: one agent per class on the store under test, started by the subclass
 * with small limits and a fake clock, and talked to over HTTP. Tests use fresh ids and streams, so they
 * share the agent.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
public abstract class AgentSuite {

    /** Settings every store's agent is started with, so that limits are reached cheaply. */
    protected static final int MAX_BATCH = 100;

    protected static final long MAX_BODY = 64 * 1024;
    protected static final Duration WINDOW = Duration.ofHours(24);
    protected static final String SHORT_NS = "short";
    protected static final Duration SHORT_WINDOW = Duration.ofSeconds(10);

    protected final FakeClock clock = new FakeClock(1_767_225_600_000L); // 2026-01-01T00:00:00Z
    protected Agent agent;
    protected AgentHttp http;

    /** Starts an agent on the store under test on a free port with the given clock and the suite's settings. */
    protected abstract Agent startAgent(FakeClock clock);

    @BeforeAll
    void start() {
        agent = startAgent(clock);
        http = new AgentHttp(agent.port());
    }

    @AfterAll
    void stop() {
        if (agent != null) {
            agent.close();
        }
    }
}
