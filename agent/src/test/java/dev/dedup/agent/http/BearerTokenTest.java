package dev.dedup.agent.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dedup.agent.Agent;
import dev.dedup.agent.testing.AgentHttp;
import dev.dedup.agent.testing.AgentUnderTest;
import dev.dedup.agent.testing.LogCapture;
import dev.dedup.wire.BatchEncoder;
import dev.dedup.wire.Item;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.List;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** An agent started with {@code --token}: every endpoint but the probes (/health/live, /health/ready) wants the bearer token. */
class BearerTokenTest {

    private static final String TOKEN = "s3cret-token-0123456789";

    @RegisterExtension
    @Order(1)
    static final LogCapture logs = new LogCapture();

    @RegisterExtension
    @Order(2)
    static final AgentUnderTest tested = AgentUnderTest.embedded(http -> http.token(TOKEN));

    private final HttpClient client = HttpClient.newHttpClient();
    private final Agent agent = tested.agent();

    private HttpResponse<String> send(String path, String authorization, byte[] body) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + agent.port() + path));
        if (authorization != null) {
            b.header("Authorization", authorization);
        }
        if (body != null) {
            b.header("Content-Type", AgentHttp.BINARY).POST(HttpRequest.BodyPublishers.ofByteArray(body));
        }
        return client.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    private static byte[] batch() {
        return BatchEncoder.binary("t", List.of(new Item("id-" + System.nanoTime(), "o")));
    }

    @Test
    void claimWithoutTokenIs401_andClaimsNothing() throws Exception {
        byte[] body = batch();
        HttpResponse<String> r = send("/v1/claims", null, body);
        assertEquals(401, r.statusCode());
        assertTrue(r.body().contains("\"error\":\"unauthorized\""), r.body());
        assertEquals("Bearer", r.headers().firstValue("WWW-Authenticate").orElse(""));
        HttpResponse<String> authorised = send("/v1/claims", "Bearer " + TOKEN, body);
        assertEquals(200, authorised.statusCode());
        assertEquals(0, authorised.body().charAt(0), "new: the rejected request claimed nothing");
    }

    @Test
    void wrongTokenIs401_onEveryEndpointButTheProbes() throws Exception {
        for (String path : List.of("/v1/stats", "/metrics", "/v1/nothing")) {
            assertEquals(401, send(path, "Bearer not-the-token-at-all", null).statusCode(), path);
            assertEquals(401, send(path, "Basic " + TOKEN, null).statusCode(), path);
        }
        assertEquals(401, send("/v1/claims", "Bearer " + TOKEN + "x", batch()).statusCode());
        assertEquals(200, send("/health/live", null, null).statusCode());
        // the kubelet's probes carry no Secret
        assertEquals(200, send("/health/ready", null, null).statusCode());
        assertEquals(
                200, send("/health/ready", "Bearer not-the-token-at-all", null).statusCode());
    }

    @Test
    void rightTokenIsAccepted_caseInsensitiveScheme() throws Exception {
        assertEquals(200, send("/v1/stats", "Bearer " + TOKEN, null).statusCode());
        assertEquals(200, send("/health/ready", "bearer " + TOKEN, null).statusCode());
    }

    @Test
    void theTokenAppearsInNoAnswerAndNoLog() throws Exception {
        send("/v1/claims", "Bearer wrong-token-wrong-token", batch());
        String stats = send("/v1/stats", "Bearer " + TOKEN, null).body();
        String metrics = send("/metrics", "Bearer " + TOKEN, null).body();
        assertFalse(stats.contains(TOKEN), stats);
        assertFalse(metrics.contains(TOKEN));
        assertFalse(logs.text().contains(TOKEN), logs.text());
        assertFalse(agent.options().http().toString().contains(TOKEN));
    }

    @Test
    void rejectedRequestsAreCountedByTheirCode_401And415Included() throws Exception {
        double unauthorized = errors("unauthorized");
        double unsupported = errors("unsupported_media_type");
        send("/v1/claims", "Bearer wrong-token-wrong-token", batch());
        send("/v1/stats", null, null);
        HttpRequest plain = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + agent.port() + "/v1/claims"))
                .header("Authorization", "Bearer " + TOKEN)
                .header("Content-Type", "text/plain")
                .POST(HttpRequest.BodyPublishers.ofString("x"))
                .build();
        assertEquals(
                415, client.send(plain, HttpResponse.BodyHandlers.ofString()).statusCode());
        assertEquals(unauthorized + 2, errors("unauthorized"));
        assertEquals(unsupported + 1, errors("unsupported_media_type"));
    }

    /** {@code dedup_errors_total{kind=...}} as /metrics says it, 0 when absent. */
    private double errors(String kind) throws Exception {
        String prefix = "dedup_errors_total{kind=\"" + kind + "\"";
        for (String line : send("/metrics", "Bearer " + TOKEN, null).body().split("\n")) {
            if (line.startsWith(prefix)) {
                return Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
            }
        }
        return 0;
    }
}
