package dev.dedup.agent.check;

import dev.dedup.agent.Agent;
import dev.dedup.agent.config.AgentOptions;
import dev.dedup.agent.config.EmbeddedStoreOptions;
import dev.dedup.agent.config.HttpOptions;
import dev.dedup.agent.config.load.ConfigLoader;
import dev.dedup.agent.config.value.ConfigException;
import dev.dedup.agent.store.IncompatibleDeploymentException;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.stream.Stream;

/**
 * {@code java -jar dedup-agent.jar self-test [--setting value ...]}: starts an agent with the given settings
 * on a free loopback port, claims ids of a namespace of its own through the HTTP API as a worker would (JSON and
 * binary, new then retry then duplicate), reads the operations endpoints, stops the agent and says whether every
 * answer was the one the contract gives. Exit 0 when it was, 1 when not, 2 for a bad setting.
 *
 * <p>With {@code --redis} it claims on those shards, as an agent with the same settings would (same layout, same
 * stamp): give the settings the deployment's agents use. Without it the embedded store lives in a temporary
 * directory, removed afterwards; {@code --data-dir} is not touched.
 *
 * <p>The image runs it once at build time under {@code -XX:AOTCacheOutput}: the classes it loads are what the
 * agent's ahead-of-time cache holds, so an agent's start maps them ready-made.
 */
public final class SetupCheck {

    /** Rounds of the three claims, so that every path of a claim (store, near-cache, both formats) runs. */
    static final int ROUNDS = 20;

    static final int BATCH = 100;

    private final PrintStream out;
    private final HttpClient http;
    private final String base;
    private final String token;
    private int requests;

    private SetupCheck(PrintStream out, String base, String token) {
        this.out = out;
        this.http = HttpClient.newBuilder()
                .version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(Duration.ofSeconds(5))
                .build();
        this.base = base;
        this.token = token;
    }

    /** Runs the command on {@code args} (after {@code self-test}); returns the exit status. */
    public static int run(List<String> args, Map<String, String> env, PrintStream out, PrintStream err) {
        if (args.contains("--help") || args.contains("-h")) {
            out.println("usage: java -jar dedup-agent.jar self-test [--setting value ...]  (the agent's settings)");
            return 0;
        }
        AgentOptions requested;
        try {
            requested = ConfigLoader.load(args, env);
        } catch (ConfigException e) {
            err.println("dedup-agent self-test: configuration error: " + e.getMessage());
            return 2;
        }
        Path scratch = null;
        try {
            if (!requested.redis().enabled()) {
                scratch = Files.createTempDirectory("dedup-self-test");
            }
            AgentOptions options = onLoopback(requested, scratch);
            Agent agent;
            try {
                agent = Agent.start(options);
            } catch (ConfigException | IncompatibleDeploymentException e) {
                err.println("dedup-agent self-test: configuration error: " + e.getMessage());
                return 2;
            }
            try {
                SetupCheck check = new SetupCheck(
                        out, "http://127.0.0.1:" + agent.port(), options.http().token());
                check.claims();
                check.operations();
                out.println("dedup-agent self-test: passed (" + check.requests + " requests, store "
                        + (requested.redis().enabled() ? "redis" : "embedded") + ")");
                return 0;
            } catch (Failure e) {
                err.println("dedup-agent self-test: FAILED: " + e.getMessage());
                return 1;
            } finally {
                agent.close();
            }
        } catch (IOException | RuntimeException e) {
            err.println("dedup-agent self-test: cannot run: " + e.getMessage());
            return 1;
        } finally {
            deleteQuietly(scratch);
        }
    }

    /** The requested settings, listening on a free loopback port with no operations port of its own. */
    private static AgentOptions onLoopback(AgentOptions requested, Path scratch) {
        HttpOptions http = requested.http().toBuilder()
                .host(HttpOptions.DEFAULT_HOST)
                .port(0)
                .insecureBind(false)
                .ops(null)
                .build();
        EmbeddedStoreOptions embedded = scratch == null
                ? requested.embedded()
                : new EmbeddedStoreOptions(
                        scratch,
                        requested.embedded().slots(),
                        requested.embedded().ways());
        return requested.toBuilder().http(http).embedded(embedded).build();
    }

    private void claims() throws Failure {
        String ns = "self-test-" + UUID.randomUUID().toString().substring(0, 8);
        for (int round = 0; round < ROUNDS; round++) {
            List<String> ids = new ArrayList<>(BATCH);
            for (int i = 0; i < BATCH; i++) {
                ids.add(UUID.randomUUID().toString());
            }
            expectJson(ns, ids, "worker-a", "new");
            expectBinary(ns, ids, "worker-a", (byte) 1, "retry");
            expectJson(ns, ids, "worker-b", "duplicate");
        }
    }

    private void operations() throws Failure {
        for (String path : List.of("/health/live", "/health/ready", "/v1/stats")) {
            get(path);
        }
        if (!get("/metrics").contains("dedup_")) {
            throw new Failure("GET /metrics has no dedup_ metric");
        }
    }

    private void expectJson(String ns, List<String> ids, String owner, String verdict) throws Failure {
        StringBuilder body = new StringBuilder("{\"ns\":\"").append(ns).append("\",\"items\":[");
        for (int i = 0; i < ids.size(); i++) {
            body.append(i == 0 ? "" : ",")
                    .append("{\"id\":\"")
                    .append(ids.get(i))
                    .append("\",\"owner\":\"")
                    .append(owner)
                    .append("\"}");
        }
        body.append("]}");
        String reply = new String(
                post("application/json", body.toString().getBytes(StandardCharsets.UTF_8)), StandardCharsets.UTF_8);
        String expected = "\"" + verdict + "\"";
        int count = reply.split(expected, -1).length - 1;
        if (count != ids.size()) {
            throw new Failure(ids.size() + " ids claimed by " + owner + " should all be " + verdict + ", the agent"
                    + " answered " + abbreviate(reply));
        }
    }

    private void expectBinary(String ns, List<String> ids, String owner, byte code, String verdict) throws Failure {
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        byte[] nsBytes = ns.getBytes(StandardCharsets.UTF_8);
        body.write(nsBytes.length);
        body.writeBytes(nsBytes);
        byte[] ownerBytes = owner.getBytes(StandardCharsets.UTF_8);
        for (String id : ids) {
            byte[] idBytes = id.getBytes(StandardCharsets.UTF_8);
            body.write(idBytes.length >> 8);
            body.write(idBytes.length);
            body.writeBytes(idBytes);
            body.write(ownerBytes.length >> 8);
            body.write(ownerBytes.length);
            body.writeBytes(ownerBytes);
        }
        byte[] reply = post("application/x-dedup-batch", body.toByteArray());
        byte[] expected = new byte[ids.size()];
        Arrays.fill(expected, code);
        if (!Arrays.equals(reply, expected)) {
            throw new Failure(ids.size() + " ids claimed again by " + owner + " (binary) should all be " + verdict
                    + ", the agent answered " + Arrays.toString(Arrays.copyOf(reply, Math.min(reply.length, 10)))
                    + (reply.length > 10 ? "..." : ""));
        }
    }

    private byte[] post(String contentType, byte[] body) throws Failure {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(base + "/v1/claims"))
                .timeout(Duration.ofSeconds(30))
                .header("Content-Type", contentType)
                .POST(HttpRequest.BodyPublishers.ofByteArray(body));
        HttpResponse<byte[]> response = send(request, "POST /v1/claims");
        if (response.statusCode() != 200) {
            throw new Failure("POST /v1/claims answered " + response.statusCode() + ": "
                    + abbreviate(new String(response.body(), StandardCharsets.UTF_8)));
        }
        return response.body();
    }

    private String get(String path) throws Failure {
        HttpResponse<byte[]> response =
                send(HttpRequest.newBuilder(URI.create(base + path)).timeout(Duration.ofSeconds(30)), "GET " + path);
        String body = new String(response.body(), StandardCharsets.UTF_8);
        if (response.statusCode() != 200) {
            throw new Failure("GET " + path + " answered " + response.statusCode() + ": " + abbreviate(body));
        }
        return body;
    }

    private HttpResponse<byte[]> send(HttpRequest.Builder request, String what) throws Failure {
        if (token != null) {
            request.header("Authorization", "Bearer " + token);
        }
        requests++;
        try {
            return http.send(request.build(), HttpResponse.BodyHandlers.ofByteArray());
        } catch (IOException e) {
            throw new Failure(what + " failed: " + e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new Failure(what + " was interrupted");
        }
    }

    private static String abbreviate(String s) {
        return s.length() <= 200 ? s : s.substring(0, 200) + "...";
    }

    private static void deleteQuietly(Path dir) {
        if (dir == null) {
            return;
        }
        try (Stream<Path> paths = Files.walk(dir)) {
            paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException e) {
            // a temporary directory left behind is harmless
        }
    }

    /** An answer that is not the contract's. */
    private static final class Failure extends Exception {
        Failure(String message) {
            super(message);
        }
    }
}
