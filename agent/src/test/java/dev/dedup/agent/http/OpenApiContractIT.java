package dev.dedup.agent.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import com.networknt.schema.InputFormat;
import com.networknt.schema.Schema;
import com.networknt.schema.SchemaRegistry;
import com.networknt.schema.SpecificationVersion;
import dev.dedup.agent.Agent;
import dev.dedup.agent.config.AgentOptions;
import dev.dedup.agent.config.EmbeddedStoreOptions;
import dev.dedup.agent.config.HttpOptions;
import dev.dedup.agent.config.NearCacheOptions;
import dev.dedup.agent.config.OpsOptions;
import dev.dedup.agent.config.RedisOptions;
import dev.dedup.agent.config.WindowOptions;
import dev.dedup.agent.metrics.AgentMetrics;
import dev.dedup.agent.testing.RedisServer;
import dev.dedup.wire.BatchEncoder;
import dev.dedup.wire.Item;
import dev.dedup.wire.MediaTypes;
import dev.dedup.wire.RangeEncoder;
import dev.dedup.wire.SequenceRange;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpMethod;
import io.vertx.ext.web.Route;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * docs/openapi.yaml against a running agent: good requests and every kind of bad one, on every documented
 * operation, each answer's status, content type, headers and JSON body validated against the document
 * (JSON Schema 2020-12, OpenAPI 3.1's dialect); every documented answer but the 500 is produced at least
 * once; and the agent serves exactly the operations the document describes.
 */
class OpenApiContractIT {

    private static final String TOKEN = "openapi-test-token-0123456789";
    private static final String READ_TOKEN = "openapi-read-token-0123456789";
    private static final int MAX_BATCH = 10;

    @TempDir
    Path dir;

    private final JsonNode doc = readDocument();
    private final SchemaRegistry schemas = SchemaRegistry.withDefaultDialect(SpecificationVersion.DRAFT_2020_12);
    private final ObjectMapper json = new ObjectMapper();
    private final HttpClient http =
            HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    private final Set<String> exercised = new TreeSet<>();
    private final List<String> violations = new ArrayList<>();

    private static JsonNode readDocument() {
        Path file = Path.of("").toAbsolutePath().resolveSibling("docs").resolve("openapi.yaml");
        try {
            return new YAMLMapper().readTree(Files.readString(file));
        } catch (Exception e) {
            throw new IllegalStateException("cannot read " + file + ": " + e.getMessage(), e);
        }
    }

    @Test
    void everyAnswerMatchesTheDocument_andEveryDocumentedAnswerIsProduced() throws Exception {
        try (Agent open = agent(HttpOptionsFor.open(), RedisOptions.none(), "open")) {
            exercise(open.port(), null);
        }
        try (Agent guarded = agent(HttpOptionsFor.token(), RedisOptions.none(), "token")) {
            for (String[] op : operations()) {
                boolean probe = op[1].startsWith("/health/"); // the kubelet asks without a Secret
                String type = op[0].equals("post") ? MediaTypes.JSON : null;
                byte[] body =
                        !op[0].equals("post") ? null : op[1].startsWith("/v1/ranges") ? rangeBody(0, 9) : claimBody(2);
                check(guarded.port(), op[0], op[1], type, body, null, probe ? 200 : 401);
                check(guarded.port(), op[0], op[1], type, body, "wrong-token-wrong-token", probe ? 200 : 401);
                // a read token reads the operations endpoints and nothing else
                check(guarded.port(), op[0], op[1], type, body, READ_TOKEN, op[0].equals("post") ? 403 : 200);
            }
            check(guarded.port(), "post", "/v1/claims", MediaTypes.JSON, claimBody(2), TOKEN, 200);
        }
        try (Agent exposed = agent(
                HttpOptionsFor.open().toBuilder()
                        .ops(new OpsOptions("0.0.0.0", 0))
                        .build(),
                RedisOptions.none(),
                "exposed")) {
            // no token, an ops port on every address: the stats (files, hosts, users) stay in the pod
            check(exposed.opsPort(), "get", "/v1/stats", null, null, null, 403);
        }
        RedisServer redis = RedisServer.start(dir.resolve("redis"));
        try (Agent onRedis = agent(
                HttpOptionsFor.open(),
                RedisOptions.builder(List.of(redis.uri()))
                        .timeout(Duration.ofMillis(500))
                        .maxInFlight(64)
                        .build(),
                "redis")) {
            check(onRedis.port(), "get", "/v1/stats", null, null, null, 200);
            redis.close(); // the store cannot answer: 503 with Retry-After, never a guess
            check(onRedis.port(), "post", "/v1/claims", MediaTypes.JSON, claimBody(2), null, 503);
            check(
                    onRedis.port(),
                    "post",
                    "/v1/claims",
                    MediaTypes.BATCH,
                    BatchEncoder.binary("ns", List.of(new Item("a", "o"))),
                    null,
                    503);
            check(onRedis.port(), "post", "/v1/releases", MediaTypes.JSON, claimBody(2), null, 503);
            check(onRedis.port(), "post", "/v1/ranges/check", MediaTypes.JSON, rangeBody(0, 9), null, 503);
            check(onRedis.port(), "post", "/v1/ranges/commit", MediaTypes.JSON, rangeBody(0, 9), null, 503);
            check(onRedis.port(), "get", "/health/ready", null, null, null, 503);
            check(onRedis.port(), "get", "/v1/stats", null, null, null, 200);
        } finally {
            redis.close();
        }

        assertEquals(List.of(), violations, "answers that do not match docs/openapi.yaml");
        Set<String> documented = documentedAnswers();
        documented.removeIf(answer -> answer.endsWith(" 500"));
        documented.removeAll(exercised);
        assertEquals(Set.of(), documented, "documented answers no request produced");
    }

    private void exercise(int port, String token) throws Exception {
        byte[] tooMany = claimBody(MAX_BATCH + 1);
        byte[] binary = BatchEncoder.binary("ns", List.of(new Item("a", "o1"), new Item("a", "o2")));
        for (String path : List.of("/v1/claims", "/v1/releases")) {
            check(port, "post", path, MediaTypes.JSON, claimBody(3), token, 200);
            check(port, "post", path, MediaTypes.BATCH, binary, token, 200);
            check(
                    port,
                    "post",
                    path,
                    MediaTypes.JSON,
                    "{\"items\":[{\"id\":\"\"}]}".getBytes(StandardCharsets.UTF_8),
                    token,
                    400);
            check(port, "post", path, MediaTypes.BATCH, new byte[] {5, 'a'}, token, 400);
            check(port, "post", path, MediaTypes.JSON, tooMany, token, 413);
            check(port, "post", path, "text/plain", "x".getBytes(StandardCharsets.UTF_8), token, 415);
        }
        for (String path : List.of("/v1/ranges/check", "/v1/ranges/commit")) {
            check(port, "post", path, MediaTypes.JSON, rangeBody(0, 99), token, 200);
            check(
                    port,
                    "post",
                    path,
                    MediaTypes.JSON,
                    "{\"stream\":\"s\",\"ranges\":[{\"from\":\"01\",\"to\":\"2\"}]}".getBytes(StandardCharsets.UTF_8),
                    token,
                    400);
            List<SequenceRange> many = new ArrayList<>();
            for (int i = 0; i <= MAX_BATCH; i++) {
                many.add(SequenceRange.of(i, i));
            }
            check(port, "post", path, MediaTypes.JSON, RangeEncoder.request("ns", "s", many), token, 413);
            check(port, "post", path, MediaTypes.BATCH, rangeBody(0, 9), token, 415);
        }
        check(port, "post", "/v1/ranges/check", MediaTypes.JSON, rangeBody(50, 150), token, 200);
        for (String path : List.of("/v1/stats", "/health/live", "/health/ready", "/metrics")) {
            check(port, "get", path, null, null, token, 200);
        }
    }

    /** Sends one request, expects {@code status}, and checks the answer against the document. */
    private void check(int port, String method, String path, String contentType, byte[] body, String token, int status)
            throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                .timeout(Duration.ofSeconds(10));
        if (contentType != null) {
            b.header("Content-Type", contentType);
        }
        if (token != null) {
            b.header("Authorization", "Bearer " + token);
        }
        b.method(
                method.toUpperCase(Locale.ROOT),
                body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofByteArray(body));
        HttpResponse<byte[]> response = http.send(b.build(), HttpResponse.BodyHandlers.ofByteArray());
        String what = method.toUpperCase(Locale.ROOT) + " " + path + " (" + contentType + ") -> "
                + response.statusCode() + " " + new String(response.body(), StandardCharsets.UTF_8);
        assertEquals(status, response.statusCode(), what);
        exercised.add(method + " " + path + " " + status);
        JsonNode operation = doc.path("paths").path(path).path(method);
        if (operation.isMissingNode()) {
            violations.add(what + ": the document has no " + method + " " + path);
            return;
        }
        String pointer = "/paths/" + escape(path) + "/" + method + "/responses/" + status;
        JsonNode answer = doc.at(pointer);
        if (answer.isMissingNode()) {
            violations.add(what + ": status " + status + " is not documented");
            return;
        }
        if (answer.has("$ref")) {
            pointer = answer.get("$ref").asText().substring(1);
            answer = doc.at(pointer);
        }
        for (Iterator<Map.Entry<String, JsonNode>> it = answer.path("headers").fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> header = it.next();
            JsonNode spec = header.getValue().has("$ref")
                    ? doc.at(header.getValue().get("$ref").asText().substring(1))
                    : header.getValue();
            if (spec.path("required").asBoolean(false)
                    && response.headers().firstValue(header.getKey()).isEmpty()) {
                violations.add(what + ": no " + header.getKey() + " header");
            }
        }
        String type = response.headers().firstValue("Content-Type").orElse("");
        String media = type.contains(";") ? type.substring(0, type.indexOf(';')).trim() : type.trim();
        JsonNode content = answer.path("content");
        if (!content.has(media)) {
            violations.add(what + ": content type " + media + " is not documented (" + content.fieldNames() + ")");
            return;
        }
        if (media.equals(MediaTypes.JSON)) {
            ObjectNode root = doc.deepCopy();
            root.put("$schema", "https://json-schema.org/draft/2020-12/schema");
            root.put("$ref", "#" + pointer + "/content/" + escape(media) + "/schema");
            Schema schema = schemas.getSchema(json.writeValueAsString(root), InputFormat.JSON);
            List<com.networknt.schema.Error> errors = schema.validate(json.readTree(response.body()));
            if (!errors.isEmpty()) {
                violations.add(what + ": " + errors);
            }
        }
    }

    /** Every documented (method path status). */
    private Set<String> documentedAnswers() {
        Set<String> answers = new TreeSet<>();
        for (String[] op : operations()) {
            doc.path("paths")
                    .path(op[1])
                    .path(op[0])
                    .path("responses")
                    .fieldNames()
                    .forEachRemaining(status -> answers.add(op[0] + " " + op[1] + " " + status));
        }
        return answers;
    }

    /** Every documented (method, path). */
    private List<String[]> operations() {
        List<String[]> ops = new ArrayList<>();
        doc.path("paths")
                .fields()
                .forEachRemaining(p -> p.getValue()
                        .fieldNames()
                        .forEachRemaining(method -> ops.add(new String[] {method, p.getKey()})));
        return ops;
    }

    @Test
    void theAgentServesExactlyTheOperationsTheDocumentDescribes() {
        Vertx vertx = Vertx.vertx();
        try {
            HttpVerticle verticle = new HttpVerticle(
                    HttpOptionsFor.open(),
                    null,
                    null,
                    new AgentMetrics(),
                    new AtomicInteger(),
                    BodyBudget.ofHeap(HttpOptionsFor.open().maxBody()),
                    new ConnectionCap(HttpOptionsFor.open().maxConnections()),
                    new Credentials(HttpOptionsFor.open()),
                    null);
            verticle.init(vertx, vertx.getOrCreateContext());
            Set<String> served = new TreeSet<>();
            for (Route route : verticle.router().getRoutes()) {
                if (route.getPath() == null) {
                    continue; // handlers for every path (the bearer token)
                }
                for (HttpMethod m : route.methods()) {
                    served.add(m.name().toLowerCase(Locale.ROOT) + " " + route.getPath());
                }
            }
            Set<String> documented = new TreeSet<>();
            for (String[] op : operations()) {
                documented.add(op[0] + " " + op[1]);
            }
            assertEquals(documented, served, "docs/openapi.yaml against the agent's routes");
            assertTrue(served.size() >= 8, served.toString());
        } finally {
            vertx.close();
        }
    }

    private Agent agent(HttpOptions httpOptions, RedisOptions redis, String name) {
        return Agent.start(new AgentOptions(
                httpOptions,
                new EmbeddedStoreOptions(dir.resolve(name), 1 << 12, 8),
                WindowOptions.defaults(),
                redis,
                new NearCacheOptions(1024)));
    }

    private static byte[] claimBody(int items) {
        List<Item> list = new ArrayList<>();
        for (int i = 0; i < items; i++) {
            list.add(new Item("id-" + (i % 2), "owner-" + i));
        }
        return BatchEncoder.json("ns", list);
    }

    private static byte[] rangeBody(long from, long to) {
        return RangeEncoder.request("ns", "shardId-1", List.of(SequenceRange.of(from, to)));
    }

    /** A JSON pointer token: {@code ~} and {@code /} escaped. */
    private static String escape(String token) {
        return token.replace("~", "~0").replace("/", "~1");
    }

    /** The HTTP settings of the agents here: small limits, with or without a token. */
    private static final class HttpOptionsFor {
        static HttpOptions open() {
            return HttpOptions.builder()
                    .port(0)
                    .maxBatch(MAX_BATCH)
                    .maxBody(1 << 16)
                    .idleTimeout(Duration.ofSeconds(30))
                    .eventLoops(1)
                    .shutdownGrace(Duration.ofSeconds(1))
                    .build();
        }

        static HttpOptions token() {
            return open().toBuilder().token(TOKEN).readToken(READ_TOKEN).build();
        }
    }
}
