package dev.dedup.agent.process;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dedup.agent.testing.AgentHttp;
import dev.dedup.agent.testing.AgentProcess;
import dev.dedup.client.DedupClient;
import dev.dedup.client.DedupException;
import dev.dedup.wire.BatchEncoder;
import dev.dedup.wire.Item;
import dev.dedup.wire.Verdict;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The real jar in the environment a pod gives its worker and its sidecar alike ({@code envFrom} one ConfigMap and
 * Secret): the clients' {@code DEDUP_URL} beside {@code DEDUP_TOKEN}. The agent starts, requires that token, and a
 * worker reading the same environment claims with it.
 */
class SharedPodEnvironmentIT {

    private static final String TOKEN = "pod-shared-token-0123456789";

    @TempDir
    Path work;

    @Test
    void theAgentStartsBesideTheClientsUrl_andRequiresTheSharedToken() throws Exception {
        Map<String, String> pod = Map.of("DEDUP_URL", "http://127.0.0.1:7070", "DEDUP_TOKEN", TOKEN);
        try (AgentProcess agent = AgentProcess.start(work, pod, "--embedded-slots", "65536")) {
            List<Item> items = List.of(new Item("m-1", "w-1"), new Item("m-2", "w-1"));

            // The worker reads the pod's variables; only its URL is this test's port, not the sidecar's 7070.
            Map<String, String> worker = Map.of("DEDUP_URL", "http://127.0.0.1:" + agent.port(), "DEDUP_TOKEN", TOKEN);
            DedupClient withToken = DedupClient.builderFromEnvironment(worker).build();
            assertEquals(List.of(Verdict.NEW, Verdict.NEW), withToken.claim("orders", items));
            assertEquals(List.of(Verdict.RETRY, Verdict.RETRY), withToken.claim("orders", items));

            DedupClient withoutToken = DedupClient.builderFromEnvironment(
                            Map.of("DEDUP_URL", "http://127.0.0.1:" + agent.port()))
                    .build();
            DedupException refused = assertThrows(DedupException.class, () -> withoutToken.claim("orders", items));
            assertEquals(401, refused.status(), refused.getMessage());

            AgentHttp raw = agent.http();
            assertEquals(
                    401,
                    raw.post("/v1/claims", AgentHttp.BINARY, BatchEncoder.binary("orders", items))
                            .statusCode());
            assertEquals(200, raw.get("/health/live").statusCode(), "the probes need no token");

            assertEquals(0, agent.terminate(Duration.ofSeconds(30)), agent.output());
            assertFalse(agent.output().contains("DEDUP_URL"), "nothing said about DEDUP_URL: " + agent.output());
        }
    }

    @Test
    void anUnknownDedupVariable_beside_theClientsUrl_stillStopsTheStart() throws Exception {
        Map<String, String> pod = Map.of("DEDUP_URL", "http://127.0.0.1:7070", "DEDUP_WINDOWS", "2h");
        try (AgentProcess agent = AgentProcess.launch(work, pod)) {
            assertEquals(2, agent.awaitExit(Duration.ofSeconds(30)), agent.output());
            assertTrue(
                    agent.output()
                            .contains("dedup-agent: configuration error: DEDUP_WINDOWS: unknown setting (see --help for"
                                    + " the DEDUP_* variables)"),
                    agent.output());
        }
    }
}
