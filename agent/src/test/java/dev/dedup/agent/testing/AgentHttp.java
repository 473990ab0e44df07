package dev.dedup.agent.testing;

import dev.dedup.wire.BatchEncoder;
import dev.dedup.wire.Item;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/** Raw HTTP against an agent, for tests that check status codes, headers and bodies to the letter. */
public final class AgentHttp {

    public static final String JSON = "application/json";
    public static final String BINARY = "application/x-dedup-batch";

    private final HttpClient client =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private final URI base;

    public AgentHttp(int port) {
        this("127.0.0.1", port);
    }

    /** An agent listening on {@code host} (an address of a test's own network, {@link Host}). */
    public AgentHttp(String host, int port) {
        this.base = URI.create("http://" + host + ":" + port);
    }

    public HttpResponse<byte[]> post(String path, String contentType, byte[] body) {
        HttpRequest.Builder b = HttpRequest.newBuilder(base.resolve(path))
                .timeout(Duration.ofSeconds(30))
                .POST(HttpRequest.BodyPublishers.ofByteArray(body));
        if (contentType != null) {
            b.header("Content-Type", contentType);
        }
        return send(b.build());
    }

    public HttpResponse<byte[]> get(String path) {
        return send(HttpRequest.newBuilder(base.resolve(path))
                .timeout(Duration.ofSeconds(30))
                .GET()
                .build());
    }

    private HttpResponse<byte[]> send(HttpRequest request) {
        try {
            return client.send(request, HttpResponse.BodyHandlers.ofByteArray());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** Claims over the binary format; fails unless 200. Returns "new" / "retry" / "duplicate" per item. */
    public List<String> claim(String ns, List<Item> items) {
        return verdicts(ok(post("/v1/claims", BINARY, BatchEncoder.binary(ns, items))));
    }

    /** Claims over JSON; fails unless 200. Returns the response text. */
    public String claimJson(String ns, List<Item> items) {
        return text(ok(post("/v1/claims", JSON, BatchEncoder.json(ns, items))));
    }

    /** Releases over the binary format; fails unless 200. */
    public List<Boolean> release(String ns, List<Item> items) {
        byte[] body =
                ok(post("/v1/releases", BINARY, BatchEncoder.binary(ns, items))).body();
        List<Boolean> out = new ArrayList<>();
        for (byte b : body) {
            out.add(b == 1);
        }
        return out;
    }

    public static HttpResponse<byte[]> ok(HttpResponse<byte[]> r) {
        if (r.statusCode() != 200) {
            throw new AssertionError("expected 200, got " + r.statusCode() + ": " + text(r));
        }
        return r;
    }

    public static List<String> verdicts(HttpResponse<byte[]> r) {
        List<String> out = new ArrayList<>();
        for (byte b : r.body()) {
            out.add(
                    switch (b) {
                        case 0 -> "new";
                        case 1 -> "retry";
                        case 2 -> "duplicate";
                        default -> throw new AssertionError("not a verdict byte: " + b);
                    });
        }
        return out;
    }

    public static String text(HttpResponse<byte[]> r) {
        return new String(r.body(), StandardCharsets.UTF_8);
    }
}
