package dev.dedup.agent.contract;

import dev.dedup.agent.Agent;
import dev.dedup.agent.config.WindowOptions;
import dev.dedup.agent.testing.AgentHttp;
import dev.dedup.agent.testing.FakeClock;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.AfterParameterizedClassInvocation;
import org.junit.jupiter.params.BeforeParameterizedClassInvocation;
import org.junit.jupiter.params.ParameterizedClass;

/**
 * What the contract suites share: a subclass is a {@link ParameterizedClass} whose arguments name the stores it runs
 * on; for each, one agent on that store, started with small limits and a fake clock, and talked to over HTTP. Tests
 * use fresh ids and streams, so they share the agent.
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
    private ContractAgents.Store store;

    /** The store under test, not started yet. */
    protected abstract ContractAgents.Store store();

    /** The windows the agent is started with. */
    protected abstract WindowOptions windows();

    /** Checks the store once every test has run, before it stops. */
    protected void afterTests(ContractAgents.Store store) throws Exception {}

    @BeforeParameterizedClassInvocation(injectArguments = false)
    void start(@TempDir Path dir) throws Exception {
        store = store();
        agent = store.start(dir, windows(), clock);
        http = new AgentHttp(agent.port());
    }

    /** Stops the agent before its store, so that it never runs on a store that is gone. */
    @AfterParameterizedClassInvocation
    void stop() throws Exception {
        try {
            if (store != null) {
                afterTests(store);
            }
        } finally {
            if (agent != null) {
                agent.close();
            }
            if (store != null) {
                store.close();
            }
        }
    }
}
