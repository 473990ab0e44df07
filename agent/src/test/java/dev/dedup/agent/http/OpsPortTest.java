package dev.dedup.agent.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dedup.agent.Agent;
import dev.dedup.agent.config.OpsOptions;
import dev.dedup.agent.testing.AgentUnderTest;
import dev.dedup.agent.testing.BearerHttp;
import java.net.http.HttpResponse;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Agents started with an ops port ({@code --ops-port}), one without a token and one with: the ops port answers
 * the four operations endpoints as the claim port does, 404s everything else (the claim API above all), and with
 * a token wants it on {@code /metrics} and {@code /v1/stats} but not on the probes. {@code /metrics} also carries
 * the JVM's and the process's own meters, which the runbooks (docs/operations.md) point operators at.
 */
class OpsPortTest {

    private static final String TOKEN = "ops-port-token-0123456789";
    private static final List<String> OPERATIONS = List.of("/health/live", "/health/ready", "/metrics", "/v1/stats");
    private static final List<String> CLAIM_API =
            List.of("/v1/claims", "/v1/releases", "/v1/ranges/check", "/v1/ranges/commit");

    @RegisterExtension
    static final AgentUnderTest openAgent = AgentUnderTest.embedded(http -> http.ops(new OpsOptions("127.0.0.1", 0)));

    @RegisterExtension
    static final AgentUnderTest guardedAgent =
            AgentUnderTest.embedded(http -> http.token(TOKEN).ops(new OpsOptions("127.0.0.1", 0)));

    private final Agent open = openAgent.agent();
    private final Agent guarded = guardedAgent.agent();
    private final BearerHttp client = new BearerHttp();

    private HttpResponse<String> get(int port, String path, String token) throws Exception {
        return client.get(port, path, token);
    }

    private HttpResponse<String> post(int port, String path, String token) throws Exception {
        return client.post(port, path, "ops", token);
    }

    @Test
    void theOpsPortIsAPortOfItsOwn() {
        assertTrue(open.opsPort() > 0);
        assertNotEquals(open.port(), open.opsPort());
        assertEquals(open.opsPort(), open.options().http().ops().port(), "the chosen port is in the options");
    }

    @Test
    void opsPortAnswersTheFourOperationsEndpoints_asTheClaimPortDoes() throws Exception {
        for (String path : OPERATIONS) {
            HttpResponse<String> ops = get(open.opsPort(), path, null);
            HttpResponse<String> claimPort = get(open.port(), path, null);
            assertEquals(200, ops.statusCode(), path);
            assertEquals(claimPort.statusCode(), ops.statusCode(), path);
            assertEquals(
                    claimPort.headers().firstValue("Content-Type"),
                    ops.headers().firstValue("Content-Type"),
                    path);
        }
        assertEquals(
                get(open.port(), "/health/ready", null).body(),
                get(open.opsPort(), "/health/ready", null).body());
        assertTrue(get(open.opsPort(), "/metrics", null).body().contains("dedup_claims_total"));
        assertTrue(get(open.opsPort(), "/v1/stats", null).body().contains("\"kind\" : \"embedded\""));
    }

    @Test
    void metricsCarryTheProcessesOwnHealth_heapGcThreadsCpuAndFiles() throws Exception {
        String metrics = get(open.opsPort(), "/metrics", null).body();
        for (String series : List.of(
                "jvm_memory_used_bytes{area=\"heap\"",
                "jvm_memory_max_bytes{area=\"heap\"",
                "jvm_gc_memory_allocated_bytes_total",
                "jvm_gc_live_data_size_bytes",
                "jvm_threads_live_threads",
                "jvm_threads_states_threads{state=\"runnable\"}",
                "jvm_classes_loaded_classes",
                "system_cpu_count",
                "process_cpu_usage",
                "process_uptime_seconds",
                "process_start_time_seconds",
                "process_files_open_files",
                "process_files_max_files")) {
            assertTrue(metrics.contains(series), series + " is not in /metrics");
        }
    }

    @Test
    void opsPortServesNothingElse_theClaimApiIs404There() throws Exception {
        for (Agent agent : List.of(open, guarded)) {
            for (String path : CLAIM_API) {
                for (String token : new String[] {null, TOKEN}) {
                    HttpResponse<String> r = post(agent.opsPort(), path, token);
                    assertEquals(404, r.statusCode(), path + " " + r.body());
                    assertTrue(r.body().contains("\"error\":\"not_found\""), r.body());
                }
            }
            assertEquals(404, get(agent.opsPort(), "/", null).statusCode());
            assertEquals(404, get(agent.opsPort(), "/v1/claims", TOKEN).statusCode());
        }
        // the claims that were refused there were not made: the claim port answers new
        HttpResponse<String> claimed = post(open.port(), "/v1/claims", null);
        assertEquals(200, claimed.statusCode());
        assertEquals(0, claimed.body().charAt(0));
    }

    @Test
    void withAToken_metricsAndStatsWantItOnTheOpsPort_theProbesDoNot() throws Exception {
        for (String path : List.of("/metrics", "/v1/stats")) {
            HttpResponse<String> without = get(guarded.opsPort(), path, null);
            assertEquals(401, without.statusCode(), path);
            assertTrue(without.body().contains("\"error\":\"unauthorized\""), without.body());
            assertEquals(
                    "Bearer", without.headers().firstValue("WWW-Authenticate").orElse(""));
            assertEquals(
                    401, get(guarded.opsPort(), path, "not-the-token-at-all").statusCode(), path);
            assertEquals(200, get(guarded.opsPort(), path, TOKEN).statusCode(), path);
            assertEquals(401, get(guarded.port(), path, null).statusCode(), path + ": and on the claim port");
        }
        for (String probe : List.of("/health/live", "/health/ready")) {
            assertEquals(200, get(guarded.opsPort(), probe, null).statusCode(), probe);
            assertEquals(
                    200, get(guarded.opsPort(), probe, "not-the-token-at-all").statusCode(), probe);
        }
    }

    @Test
    void theClaimPortKeepsItsRules() throws Exception {
        assertEquals(401, post(guarded.port(), "/v1/claims", null).statusCode());
        assertEquals(200, post(guarded.port(), "/v1/claims", TOKEN).statusCode());
        assertEquals(200, get(guarded.port(), "/health/live", null).statusCode());
        assertEquals(200, get(open.port(), "/metrics", null).statusCode(), "still served on the claim port too");
    }
}
