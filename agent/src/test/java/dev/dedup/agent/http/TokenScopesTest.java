package dev.dedup.agent.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dedup.agent.Agent;
import dev.dedup.agent.config.AgentOptions;
import dev.dedup.agent.config.HttpOptions;
import dev.dedup.agent.config.OpsOptions;
import dev.dedup.agent.testing.AgentUnderTest;
import dev.dedup.agent.testing.BearerHttp;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.List;
import java.util.function.IntSupplier;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Tokens by file and by scope: a token file re-read while the agent runs (a rotation with two tokens, then one; a
 * refused file that changes nothing), a read token that reads {@code /metrics} and {@code /v1/stats} and cannot
 * claim, and {@code /v1/stats} refused without a token on an ops port that leaves the pod.
 */
class TokenScopesTest {

    private static final String OLD = "old-claim-token-0123456789";
    private static final String NEW = "new-claim-token-9876543210";
    private static final String READER = "reader-token-abcdef012345";

    @TempDir
    Path dir;

    private final BearerHttp client = new BearerHttp();

    /** An agent's options with {@link AgentUnderTest#http()} as {@code http} changes them, idle connections kept. */
    private static AgentOptions options(Path data, UnaryOperator<HttpOptions.Builder> http) {
        return AgentUnderTest.embeddedOptions(
                data,
                http.apply(AgentUnderTest.http().idleTimeout(HttpOptions.DEFAULT_IDLE_TIMEOUT))
                        .build());
    }

    @Test
    void aTokenFileIsReadAgainWhenItChanges_twoTokensDuringARotation_andARefusedFileChangesNothing() throws Exception {
        Path file = dir.resolve("token");
        write(file, OLD + "\n");
        try (Agent agent = Agent.start(options(dir.resolve("data"), h -> h.tokenFile(file)))) {
            int port = agent.port();
            assertEquals(200, claim(port, OLD));
            assertEquals(401, claim(port, NEW));

            write(file, OLD + "\n" + NEW + "\n");
            awaitStatus(200, () -> claim(port, NEW));
            assertEquals(200, claim(port, OLD), "both tokens during the rotation");

            write(file, NEW + "\n");
            awaitStatus(401, () -> claim(port, OLD));
            assertEquals(200, claim(port, NEW));

            write(file, "a".repeat(24) + "\n");
            awaitMetric(port, NEW, "dedup_token_file_reloads_total{result=\"refused\"} 1.0");
            assertEquals(200, claim(port, NEW), "a refused file leaves the tokens before it");
            assertEquals(401, claim(port, "a".repeat(24)));
            assertTrue(metrics(port, NEW).contains("dedup_token_file_reloads_total{result=\"applied\"} 2.0"));

            write(file, "# revoked\n"); // emptied on purpose: every token it held is revoked
            awaitStatus(401, () -> claim(port, NEW));
            write(file, NEW + "\n");
            awaitStatus(200, () -> claim(port, NEW));
        }
    }

    @Test
    void aReadTokenReadsMetricsAndStats_andCannotClaimOrRelease() throws Exception {
        Path file = dir.resolve("read-token");
        write(file, READER + "\n");
        try (Agent agent = Agent.start(options(
                dir.resolve("data"), h -> h.token(OLD).readTokenFile(file).ops(new OpsOptions("127.0.0.1", 0))))) {
            for (int port : new int[] {agent.port(), agent.opsPort()}) {
                assertEquals(200, get(port, "/metrics", READER).statusCode());
                assertEquals(200, get(port, "/v1/stats", READER).statusCode());
                assertEquals(200, get(port, "/metrics", OLD).statusCode(), "a claim token reads too");
                assertEquals(401, get(port, "/metrics", null).statusCode());
                assertEquals(401, get(port, "/v1/stats", null).statusCode());
                assertEquals(200, get(port, "/health/ready", null).statusCode(), "the probes need no token");
            }
            HttpResponse<String> refused = post(agent.port(), "/v1/claims", READER);
            assertEquals(403, refused.statusCode());
            assertTrue(refused.body().contains("\"error\":\"forbidden\""), refused.body());
            assertTrue(refused.body().contains("a read token may only GET /metrics and /v1/stats"), refused.body());
            assertEquals(403, post(agent.port(), "/v1/releases", READER).statusCode());
            assertEquals(200, post(agent.port(), "/v1/claims", OLD).statusCode());
            assertFalse(get(agent.port(), "/v1/stats", OLD).body().contains(READER));
        }
    }

    @Test
    void statsOnAnOpsPortThatLeavesThePod_wantAToken_metricsDoNot() throws Exception {
        try (Agent open = Agent.start(options(dir.resolve("open"), h -> h.ops(new OpsOptions("0.0.0.0", 0))))) {
            HttpResponse<String> stats = get(open.opsPort(), "/v1/stats", null);
            assertEquals(403, stats.statusCode());
            assertTrue(stats.body().contains("set --read-token (or --read-token-file)"), stats.body());
            assertEquals(200, get(open.opsPort(), "/metrics", null).statusCode());
            assertEquals(200, get(open.opsPort(), "/health/ready", null).statusCode());
            assertEquals(200, get(open.port(), "/v1/stats", null).statusCode(), "the claim port is on loopback");
        }
        try (Agent read = Agent.start(
                options(dir.resolve("read"), h -> h.readToken(READER).ops(new OpsOptions("0.0.0.0", 0))))) {
            assertEquals(200, get(read.opsPort(), "/v1/stats", READER).statusCode());
            assertEquals(401, get(read.opsPort(), "/metrics", null).statusCode());
            assertEquals(200, post(read.port(), "/v1/claims", null).statusCode(), "no claim token: loopback claims");
        }
    }

    @Test
    void aPathWrittenAnotherWayIsJudgedAsTheRouterReadsIt() throws Exception {
        List<String> statsAgain = List.of("/v1/%73tats", "/v1/./stats", "//v1/stats", "/v1/x/../stats");
        List<String> metricsAgain = List.of("/%6detrics", "/./metrics", "//metrics");
        try (Agent open = Agent.start(options(dir.resolve("open"), h -> h.ops(new OpsOptions("0.0.0.0", 0))))) {
            for (String path : statsAgain) {
                assertEquals(403, rawGet(open.opsPort(), path), path + ": /v1/stats, off loopback, without a token");
            }
        }
        try (Agent read = Agent.start(options(dir.resolve("read"), h -> h.readToken(READER)))) {
            for (String path : statsAgain) {
                assertEquals(401, rawGet(read.port(), path), path + ": /v1/stats wants the read token");
            }
            for (String path : metricsAgain) {
                assertEquals(401, rawGet(read.port(), path), path + ": /metrics wants the read token");
            }
        }
    }

    /** The status of a GET of {@code path} written as given, not normalized by a client. */
    private static int rawGet(int port, String path) throws Exception {
        try (java.net.Socket socket = new java.net.Socket("127.0.0.1", port)) {
            socket.setSoTimeout(5000);
            socket.getOutputStream()
                    .write(("GET " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
                            .getBytes(java.nio.charset.StandardCharsets.US_ASCII));
            String status = new java.io.BufferedReader(new java.io.InputStreamReader(
                            socket.getInputStream(), java.nio.charset.StandardCharsets.US_ASCII))
                    .readLine();
            return Integer.parseInt(status.split(" ")[1]);
        }
    }

    /** Writes the file whole and moves it in place, as a Secret's volume swaps its files. */
    private static void write(Path file, String text) throws Exception {
        Path next = file.resolveSibling(file.getFileName() + ".next");
        Files.writeString(next, text);
        Files.move(next, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    }

    private static void awaitStatus(int status, IntSupplier request) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(15).toNanos();
        int last = request.getAsInt();
        while (last != status && System.nanoTime() < deadline) {
            Thread.sleep(100);
            last = request.getAsInt();
        }
        assertEquals(status, last, "within 15 s of the file's change");
    }

    private void awaitMetric(int port, String token, String line) throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(15).toNanos();
        while (!metrics(port, token).contains(line) && System.nanoTime() < deadline) {
            Thread.sleep(100);
        }
        assertTrue(metrics(port, token).contains(line), line);
    }

    private String metrics(int port, String token) throws Exception {
        return get(port, "/metrics", token).body();
    }

    private int claim(int port, String token) {
        try {
            return post(port, "/v1/claims", token).statusCode();
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }

    private HttpResponse<String> get(int port, String path, String token) throws Exception {
        return client.get(port, path, token);
    }

    private HttpResponse<String> post(int port, String path, String token) throws Exception {
        return client.post(port, path, "tokens", token);
    }
}
