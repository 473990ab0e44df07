package dev.dedup.agent.testing;

import dev.dedup.wire.BatchEncoder;
import dev.dedup.wire.Item;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.List;

/**
 * Requests with a bearer token or without one, answers read as text: for tests of who may call what on which
 * port.
 */
public final class BearerHttp {

    private final HttpClient client = HttpClient.newHttpClient();

    /** GET {@code path} on {@code port}, with {@code token} unless it is null. */
    public HttpResponse<String> get(int port, String path, String token) throws IOException, InterruptedException {
        return send(HttpRequest.newBuilder(uri(port, path)), token);
    }

    /** POST a binary batch of one fresh id in {@code ns} to {@code path} on {@code port}. */
    public HttpResponse<String> post(int port, String path, String ns, String token)
            throws IOException, InterruptedException {
        byte[] batch = BatchEncoder.binary(ns, List.of(new Item("id-" + System.nanoTime(), "0:1")));
        return send(
                HttpRequest.newBuilder(uri(port, path))
                        .header("Content-Type", AgentHttp.BINARY)
                        .POST(HttpRequest.BodyPublishers.ofByteArray(batch)),
                token);
    }

    private HttpResponse<String> send(HttpRequest.Builder request, String token)
            throws IOException, InterruptedException {
        if (token != null) {
            request.header("Authorization", "Bearer " + token);
        }
        return client.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    private static URI uri(int port, String path) {
        return URI.create("http://127.0.0.1:" + port + path);
    }
}
