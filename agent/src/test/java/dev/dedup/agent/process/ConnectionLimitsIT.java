package dev.dedup.agent.process;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dedup.agent.testing.AgentProcess;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The real jar's limits on connections: past {@code --max-connections} a connection is closed when accepted and
 * counted, those held go on; HTTP/2 over cleartext is not spoken; a request refused for its token has its connection
 * closed once answered, its body unread.
 */
class ConnectionLimitsIT {

    private static final String TOKEN = "a-test-token-of-24-chars";

    @TempDir
    Path work;

    @Test
    void pastTheCap_aConnectionIsClosedWhenAccepted_andCounted_whileThoseHeldGoOn() throws Exception {
        try (AgentProcess agent = AgentProcess.start(work, "--max-connections", "4", "--event-loops", "2")) {
            // The test's own client may hold a connection from the start: open until one is refused.
            List<Socket> held = new ArrayList<>();
            Socket refused = null;
            try {
                for (int i = 0; i < 6 && refused == null; i++) {
                    Socket s = connect(agent.port());
                    if ("200".equals(status(s, "GET /health/live"))) {
                        held.add(s);
                    } else {
                        refused = s;
                    }
                }
                assertTrue(refused != null, "a connection past the cap of 4 is refused");
                assertTrue(held.size() >= 3 && held.size() <= 4, "held before one was refused: " + held.size());
                assertEquals(-1, refused.getInputStream().read(), "the refused one is closed, its request unread");
                for (Socket s : held) {
                    assertEquals("200", status(s, "GET /health/live"), "those held go on");
                }
            } finally {
                for (Socket s : held) {
                    s.close();
                }
                if (refused != null) {
                    refused.close();
                }
            }
            String metrics = waitFor(() -> agent.http().get("/metrics"));
            assertTrue(metrics.matches("(?s).*\\ndedup_http_connections_refused_total [1-9].*"), metrics);
        }
    }

    @Test
    void http2OverCleartext_isAnsweredInHttp11() throws Exception {
        try (AgentProcess agent = AgentProcess.start(work)) {
            HttpClient client =
                    HttpClient.newBuilder().version(HttpClient.Version.HTTP_2).build();
            HttpResponse<String> r = client.send(
                    HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + agent.port() + "/health/live"))
                            .build(),
                    HttpResponse.BodyHandlers.ofString());
            assertEquals(200, r.statusCode());
            assertEquals(HttpClient.Version.HTTP_1_1, r.version(), "the h2c upgrade is declined");
        }
    }

    @Test
    void aRequestWithoutTheToken_isAnswered401_andItsConnectionClosed_itsBodyUnread() throws Exception {
        try (AgentProcess agent = AgentProcess.start(work, "--token", TOKEN)) {
            try (Socket s = connect(agent.port())) {
                OutputStream out = s.getOutputStream();
                out.write(("POST /v1/claims HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                                + "Content-Length: 1000000\r\n\r\n{\"items\":[")
                        .getBytes(StandardCharsets.US_ASCII));
                out.flush();
                InputStream in = s.getInputStream();
                String head = readUntilClosed(in);
                assertTrue(head.startsWith("HTTP/1.1 401 "), head);
                assertTrue(head.toLowerCase().contains("connection: close"), head);
            }
        }
    }

    private static Socket connect(int port) throws IOException {
        Socket s = new Socket("127.0.0.1", port);
        s.setSoTimeout(10_000);
        return s;
    }

    /** Sends a request line without a body on {@code s} and returns its status code. */
    private static String status(Socket s, String requestLine) throws IOException {
        s.getOutputStream()
                .write((requestLine + " HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
        s.getOutputStream().flush();
        InputStream in = s.getInputStream();
        StringBuilder line = new StringBuilder();
        int c;
        while ((c = in.read()) >= 0 && c != '\n') {
            line.append((char) c);
        }
        // drain the rest of the answer: headers, then a body of Content-Length bytes
        int length = 0;
        StringBuilder header = new StringBuilder();
        while ((c = in.read()) >= 0) {
            if (c == '\n') {
                String h = header.toString().trim();
                if (h.isEmpty()) {
                    break;
                }
                if (h.toLowerCase().startsWith("content-length:")) {
                    length = Integer.parseInt(
                            h.substring("content-length:".length()).trim());
                }
                header.setLength(0);
            } else {
                header.append((char) c);
            }
        }
        in.readNBytes(length);
        String[] parts = line.toString().split(" ");
        return parts.length > 1 ? parts[1] : line.toString();
    }

    /** Everything the agent sends until it closes the connection (a read times out after 10 s if it does not). */
    private static String readUntilClosed(InputStream in) throws IOException {
        return new String(in.readAllBytes(), StandardCharsets.ISO_8859_1);
    }

    /** The body of the first successful GET within 10 s (a connection may still be closing). */
    private static String waitFor(Get get) throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        Exception last = null;
        while (System.nanoTime() < deadline) {
            try {
                HttpResponse<byte[]> r = get.get();
                if (r.statusCode() == 200) {
                    return new String(r.body(), StandardCharsets.UTF_8);
                }
            } catch (Exception e) {
                last = e;
            }
            Thread.sleep(100);
        }
        throw new AssertionError("no answer in 10 s", last);
    }

    @FunctionalInterface
    private interface Get {
        HttpResponse<byte[]> get() throws Exception;
    }
}
