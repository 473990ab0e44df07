package dev.dedup.agent.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dedup.agent.Agent;
import dev.dedup.agent.config.AgentOptions;
import dev.dedup.agent.config.EmbeddedStoreOptions;
import dev.dedup.agent.config.HttpOptions;
import dev.dedup.agent.config.WindowOptions;
import dev.dedup.agent.testing.AgentHttp;
import dev.dedup.wire.BatchEncoder;
import dev.dedup.wire.Item;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code max-namespaces}: an agent that serves two namespaces besides a configured one refuses a third by every
 * endpoint that names one (400, nothing claimed, released or committed), keeps serving the ones it has and the
 * configured one, and says how many are in use in {@code /v1/stats}.
 */
class NamespaceCapTest {

    @TempDir
    Path dir;

    @Test
    void oneNamespaceMoreThanTheCapIsRefusedByEveryEndpoint_andChangesNothing() throws Exception {
        WindowOptions windows = new WindowOptions(
                WindowOptions.DEFAULT_WINDOW, Map.of("configured", Duration.ofHours(1)), Map.of(), Map.of(), 2);
        HttpOptions http = HttpOptions.builder().port(0).eventLoops(1).build();
        try (Agent agent = Agent.start(new AgentOptions(http, new EmbeddedStoreOptions(dir, 1 << 12, 8), windows))) {
            AgentHttp client = new AgentHttp(agent.port());
            assertEquals(200, claim(client, "first", "a").statusCode());
            assertEquals(200, claim(client, "second", "a").statusCode());

            HttpResponse<byte[]> refused = claim(client, "third", "a");
            assertEquals(400, refused.statusCode());
            String body = new String(refused.body(), StandardCharsets.UTF_8);
            assertTrue(
                    body.contains("namespace: third would be one more than the 2 this agent serves besides the"
                            + " configured ones (max-namespaces)"),
                    body);
            assertEquals(
                    400,
                    client.post("/v1/releases", AgentHttp.BINARY, batch("third", "a"))
                            .statusCode());
            String ranges = "{\"ns\":\"third\",\"stream\":\"s\",\"ranges\":[{\"from\":\"1\",\"to\":\"2\"}]}";
            assertEquals(
                    400,
                    client.post("/v1/ranges/commit", AgentHttp.JSON, ranges.getBytes())
                            .statusCode());
            assertEquals(
                    400,
                    client.post("/v1/ranges/check", AgentHttp.JSON, ranges.getBytes())
                            .statusCode());

            assertEquals(200, claim(client, "configured", "a").statusCode(), "a configured namespace is not counted");
            HttpResponse<byte[]> again = claim(client, "first", "a");
            assertEquals(200, again.statusCode());
            assertEquals(1, again.body()[0], "the namespaces taken in keep their claims: retry");
            String stats = new String(client.get("/v1/stats").body(), StandardCharsets.UTF_8);
            assertTrue(stats.contains("\"in_use\" : 2"), stats);
            assertTrue(stats.contains("\"max\" : 2"), stats);
        }
        try (Agent restarted =
                Agent.start(new AgentOptions(http, new EmbeddedStoreOptions(dir, 1 << 12, 8), windows))) {
            HttpResponse<byte[]> third = claim(new AgentHttp(restarted.port()), "third", "a");
            assertEquals(200, third.statusCode());
            assertEquals(0, third.body()[0], "nothing of the refused requests was claimed: new");
        }
    }

    private static HttpResponse<byte[]> claim(AgentHttp client, String namespace, String id) {
        return client.post("/v1/claims", AgentHttp.BINARY, batch(namespace, id));
    }

    private static byte[] batch(String namespace, String id) {
        return BatchEncoder.binary(namespace, List.of(new Item(id, "0:1")));
    }
}
