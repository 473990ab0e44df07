package dev.dedup.client;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.dedup.wire.BatchEncoder;
import dev.dedup.wire.Item;
import dev.dedup.wire.MediaTypes;
import dev.dedup.wire.SequenceRange;
import dev.dedup.wire.Verdict;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The client against a canned-answer HTTP server on a loopback port: what it sends, how it reads answers. */
class DedupClientTest {

    private static final List<Item> THREE =
            List.of(new Item("a", "3:1"), new Item("b", "3:2"), new Item("\u20ac-id", "3:3"));

    /** What the server saw of the last request. */
    private record Seen(
            String method, String path, String contentType, String accept, String authorization, byte[] body) {}

    /** The canned answer of the server. */
    private record Answer(int status, String contentType, byte[] body, String retryAfter, long delayMillis) {
        static Answer bytes(int... values) {
            byte[] body = new byte[values.length];
            for (int i = 0; i < values.length; i++) {
                body[i] = (byte) values[i];
            }
            return new Answer(200, MediaTypes.VERDICTS, body, null, 0);
        }

        static Answer error(int status, String json, String retryAfter) {
            return new Answer(status, "application/json", json.getBytes(StandardCharsets.UTF_8), retryAfter, 0);
        }
    }

    private HttpServer server;
    private ExecutorService executor;
    private URI base;
    private volatile Answer answer = Answer.bytes();
    private volatile Seen seen;

    @BeforeEach
    void startServer() throws IOException {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        executor = Executors.newCachedThreadPool();
        server.setExecutor(executor);
        server.createContext("/", this::handle);
        server.start();
        base = URI.create("http://127.0.0.1:" + server.getAddress().getPort());
    }

    @AfterEach
    void stopServer() throws InterruptedException {
        server.stop(0);
        executor.shutdownNow();
        executor.awaitTermination(5, TimeUnit.SECONDS);
    }

    private void handle(HttpExchange exchange) throws IOException {
        try (exchange) {
            seen = new Seen(
                    exchange.getRequestMethod(),
                    exchange.getRequestURI().getPath(),
                    exchange.getRequestHeaders().getFirst("Content-Type"),
                    exchange.getRequestHeaders().getFirst("Accept"),
                    exchange.getRequestHeaders().getFirst("Authorization"),
                    exchange.getRequestBody().readAllBytes());
            Answer a = answer;
            if (a.delayMillis() > 0) {
                try {
                    Thread.sleep(a.delayMillis());
                } catch (InterruptedException e) {
                    return;
                }
            }
            exchange.getResponseHeaders().set("Content-Type", a.contentType());
            if (a.retryAfter() != null) {
                exchange.getResponseHeaders().set("Retry-After", a.retryAfter());
            }
            exchange.sendResponseHeaders(a.status(), a.body().length == 0 ? -1 : a.body().length);
            exchange.getResponseBody().write(a.body());
        }
    }

    private DedupClient client() {
        return DedupClient.create(base);
    }

    /** What a claim of three items throws on the answer the test set. */
    private DedupException claimFails() {
        return assertThrows(DedupException.class, () -> client().claim("t", THREE));
    }

    @Test
    void claim_postsTheBinaryBatch_andDecodesOneVerdictPerItem() throws IOException {
        answer = Answer.bytes(0, 1, 2);

        List<Verdict> verdicts = DedupClient.create(base).claim("clicks", THREE);

        assertEquals(List.of(Verdict.NEW, Verdict.RETRY, Verdict.DUPLICATE), verdicts);
        assertEquals("POST", seen.method());
        assertEquals("/v1/claims", seen.path());
        assertEquals("application/x-dedup-batch", seen.contentType());
        assertEquals("application/x-dedup-verdicts", seen.accept());
        assertArrayEquals(BatchEncoder.binary("clicks", THREE), seen.body());
        assertEquals(6, seen.body()[0], "namespace length");
        assertEquals("clicks", new String(seen.body(), 1, 6, StandardCharsets.US_ASCII));
    }

    @Test
    void claim_withoutANamespace_sendsTheDefaultOne() throws IOException {
        answer = Answer.bytes(0, 0, 0);

        DedupClient.create(base).claim(null, THREE);

        assertEquals(0, seen.body()[0], "namespace length 0 means default");
        assertArrayEquals(BatchEncoder.binary("", THREE), seen.body());
    }

    @Test
    void aNamespaceTheAgentWouldRefuse_failsBeforeAnythingIsSent() {
        DedupClient client = DedupClient.create(base);
        IllegalArgumentException e =
                assertThrows(IllegalArgumentException.class, () -> client.claim("n".repeat(65), THREE));
        assertTrue(e.getMessage().endsWith("is not a namespace (1 to 64 of A-Z a-z 0-9 . _ -)"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> client.release("clicks/eu", THREE));
        assertThrows(IllegalArgumentException.class, () -> client.claim("clické", THREE));
        assertNull(seen, "nothing sent");
    }

    @Test
    void claim_ofNoItems_sendsTheNamespaceOnly() throws IOException {
        assertEquals(List.of(), DedupClient.create(base).claim("t", List.of()));
        assertArrayEquals(new byte[] {1, 't'}, seen.body());
    }

    @Test
    void release_postsToReleases_andReadsOneBooleanPerItem() throws IOException {
        answer = Answer.bytes(1, 0, 1);

        boolean[] released = DedupClient.create(base).release("clicks", THREE);

        assertArrayEquals(new boolean[] {true, false, true}, released);
        assertEquals("/v1/releases", seen.path());
        assertEquals("application/x-dedup-batch", seen.contentType());
        assertArrayEquals(BatchEncoder.binary("clicks", THREE), seen.body());
    }

    @Test
    void asyncVariants_completeWithTheSameAnswers() {
        DedupClient client = DedupClient.create(base);
        answer = Answer.bytes(2, 0, 1);
        assertEquals(
                List.of(Verdict.DUPLICATE, Verdict.NEW, Verdict.RETRY),
                client.claimAsync("t", THREE).join());
        assertEquals("/v1/claims", seen.path());

        answer = Answer.bytes(0, 0, 1);
        assertArrayEquals(
                new boolean[] {false, false, true},
                client.releaseAsync("t", THREE).join());
        assertEquals("/v1/releases", seen.path());
    }

    @Test
    void badRequest_becomesADedupExceptionWithCodeAndMessage() {
        answer = Answer.error(400, "{\"error\": \"bad_request\", \"message\": \"items[3].id: empty\"}", null);

        DedupException e = claimFails();

        assertEquals(400, e.status());
        assertEquals("bad_request", e.error());
        assertEquals("items[3].id: empty", e.detail());
        assertEquals("400 bad_request: items[3].id: empty", e.getMessage());
        assertEquals(OptionalLong.empty(), e.retryAfterSeconds());
        assertTrue(e.isRejected());
    }

    @Test
    void tooLarge_isRejectedToo() {
        answer = Answer.error(
                413,
                "{\"message\": \"items: more than max-batch (3) items\", \"error\": \"too_large\","
                        + " \"extra\": {\"nested\": [1, 2]}}",
                null);

        DedupException e = assertThrows(DedupException.class, () -> client().release("t", THREE));

        assertEquals(413, e.status());
        assertEquals("too_large", e.error());
        assertEquals("items: more than max-batch (3) items", e.detail());
    }

    @Test
    void unavailable_carriesRetryAfter_andIsNotARejection() {
        answer = Answer.error(503, "{\"error\": \"unavailable\", \"message\": \"store timed out\"}", "2");

        DedupException e = claimFails();

        assertEquals(503, e.status());
        assertEquals("unavailable", e.error());
        assertEquals(OptionalLong.of(2), e.retryAfterSeconds());
        assertFalse(e.isRejected());
    }

    @Test
    void unavailable_failsTheAsyncFutureWithTheSameException() {
        answer = Answer.error(503, "{\"error\": \"unavailable\", \"message\": \"store timed out\"}", "7");

        CompletionException e = assertThrows(
                CompletionException.class,
                () -> DedupClient.create(base).claimAsync("t", THREE).join());

        DedupException cause = assertInstanceOf(DedupException.class, e.getCause());
        assertEquals(OptionalLong.of(7), cause.retryAfterSeconds());
    }

    @Test
    void retryAfterAsAnHttpDate_isReadAsSecondsFromNow() {
        String inAMinute =
                DateTimeFormatter.RFC_1123_DATE_TIME.format(ZonedDateTime.now().plusSeconds(60));
        answer = Answer.error(503, "{\"error\": \"unavailable\", \"message\": \"x\"}", inAMinute);

        DedupException e = claimFails();

        long seconds = e.retryAfterSeconds().orElseThrow();
        assertTrue(seconds > 50 && seconds <= 60, "seconds: " + seconds);
    }

    @Test
    void unreadableRetryAfter_isIgnored() {
        answer = Answer.error(503, "{\"error\": \"unavailable\", \"message\": \"x\"}", "soon");
        DedupException e = claimFails();
        assertEquals(OptionalLong.empty(), e.retryAfterSeconds());
    }

    @Test
    void errorWithoutTheAgentsJson_keepsTheStatusAndTheText() {
        answer = new Answer(502, "text/html", "<html>Bad Gateway</html>\n".getBytes(StandardCharsets.UTF_8), null, 0);

        DedupException e = claimFails();

        assertEquals(502, e.status());
        assertEquals("http_502", e.error());
        assertEquals("<html>Bad Gateway</html>", e.detail());
    }

    @Test
    void errorWithAnEmptyBody_namesTheStatus() {
        answer = new Answer(500, "application/json", new byte[0], null, 0);

        DedupException e = claimFails();

        assertEquals("http_500", e.error());
        assertEquals("500 http_500", e.getMessage());
    }

    @Test
    void wrongNumberOfVerdicts_isAnInvalidResponse() {
        answer = Answer.bytes(0, 1);

        DedupException e = claimFails();

        assertEquals(200, e.status());
        assertEquals(DedupException.INVALID_RESPONSE, e.error());
        assertEquals("2 bytes for 3 items", e.detail());
    }

    @Test
    void byteThatIsNoVerdict_isAnInvalidResponse() {
        answer = Answer.bytes(0, 3, 1);
        DedupException claim = assertThrows(
                DedupException.class, () -> DedupClient.create(base).claim("t", THREE));
        assertEquals(DedupException.INVALID_RESPONSE, claim.error());

        answer = Answer.bytes(0, 2, 1);
        DedupException release = assertThrows(
                DedupException.class, () -> DedupClient.create(base).release("t", THREE));
        assertEquals(DedupException.INVALID_RESPONSE, release.error());
    }

    @Test
    void token_isSentOnEveryCall_andNoAuthorizationWithout() throws IOException {
        answer = Answer.bytes(0, 0, 0);
        DedupClient.create(base).claim("t", THREE);
        assertNull(seen.authorization());

        DedupClient withToken = DedupClient.builder(base).token("s3cr3t.token").build();
        withToken.claim("t", THREE);
        assertEquals("Bearer s3cr3t.token", seen.authorization());
        withToken.release("t", THREE);
        assertEquals("Bearer s3cr3t.token", seen.authorization());
    }

    @Test
    void fromEnvironment_callsTheAgentOfDedupUrl_withTheTokenOfDedupToken() throws IOException {
        answer = Answer.bytes(0, 1, 2);
        DedupClient client = DedupClient.builderFromEnvironment(
                        Map.of("DEDUP_URL", base.toString(), "DEDUP_TOKEN", "s3cr3t.token", "PATH", "/bin"))
                .build();
        assertEquals(List.of(Verdict.NEW, Verdict.RETRY, Verdict.DUPLICATE), client.claim("clicks", THREE));
        assertEquals("/v1/claims", seen.path());
        assertEquals("Bearer s3cr3t.token", seen.authorization());
        assertEquals(base, client.base());
    }

    @Test
    void fromEnvironment_withoutDedupUrl_isTheSidecarOnLoopback_andWithoutDedupToken_sendsNone() throws IOException {
        assertEquals(URI.create("http://127.0.0.1:7070"), DedupClient.DEFAULT_URL);
        assertEquals(
                DedupClient.DEFAULT_URL,
                DedupClient.builderFromEnvironment(Map.of()).build().base());
        assertEquals(
                DedupClient.DEFAULT_URL,
                DedupClient.builderFromEnvironment(Map.of("DEDUP_URL", " "))
                        .build()
                        .base(),
                "empty is unset");
        answer = Answer.bytes(0, 0, 0);
        for (Map<String, String> env : List.of(
                Map.of("DEDUP_URL", base.toString()),
                Map.of("DEDUP_URL", base.toString(), "DEDUP_TOKEN", ""),
                Map.of("DEDUP_URL", base.toString(), "DEDUP_TOKEN", " \n"))) {
            seen = null;
            DedupClient.builderFromEnvironment(env).build().claim("t", THREE);
            assertNull(seen.authorization(), env.toString());
        }
    }

    @Test
    void fromEnvironment_ignoresWhitespaceAroundTheValues_asTheAgentDoes() throws IOException {
        answer = Answer.bytes(0, 0, 0);
        DedupClient.builderFromEnvironment(Map.of("DEDUP_URL", " " + base + "\n", "DEDUP_TOKEN", "s3cr3t.token\n"))
                .build()
                .claim("t", THREE);
        assertEquals("Bearer s3cr3t.token", seen.authorization(), "a Secret's trailing newline");
    }

    @Test
    void settingsGivenToTheBuilder_winOverTheEnvironment() throws IOException {
        answer = Answer.bytes(0, 0, 0);
        DedupClient.builderFromEnvironment(Map.of("DEDUP_URL", base.toString(), "DEDUP_TOKEN", "from.the.environment"))
                .token("given.explicitly")
                .build()
                .claim("t", THREE);
        assertEquals("Bearer given.explicitly", seen.authorization());
    }

    @Test
    void badEnvironment_isRefusedNamingTheVariable() {
        IllegalArgumentException e = assertThrows(
                IllegalArgumentException.class,
                () -> DedupClient.builderFromEnvironment(Map.of("DEDUP_URL", "localhost:7070")));
        assertTrue(e.getMessage().startsWith("DEDUP_URL: 'localhost:7070' is not an http(s) URI"), e.getMessage());
        e = assertThrows(
                IllegalArgumentException.class,
                () -> DedupClient.builderFromEnvironment(Map.of("DEDUP_URL", "http://a b:1")));
        assertTrue(e.getMessage().startsWith("DEDUP_URL: 'http://a b:1' is not a URI"), e.getMessage());
        e = assertThrows(
                IllegalArgumentException.class,
                () -> DedupClient.builderFromEnvironment(Map.of("DEDUP_TOKEN", "two words")));
        assertEquals("DEDUP_TOKEN: must be non-empty printable ASCII without spaces", e.getMessage());
    }

    @Test
    void unauthorized_withoutAToken_saysThatNoneWasSent() {
        answer = Answer.error(
                401,
                "{\"error\":\"unauthorized\",\"message\":\"missing or wrong bearer token (Authorization: Bearer <token>)\"}",
                null);
        DedupException none = assertThrows(
                DedupException.class, () -> DedupClient.create(base).claim("t", THREE));
        assertEquals(401, none.status());
        assertEquals("unauthorized", none.error());
        assertTrue(none.isRejected());
        assertEquals(
                "401 unauthorized: missing or wrong bearer token (Authorization: Bearer <token>); this client sent no"
                        + " token: give it the agent's --token (DEDUP_TOKEN)",
                none.getMessage());
        DedupException wrong = assertThrows(
                DedupException.class,
                () -> DedupClient.builder(base).token("wrong.token").build().release("t", THREE));
        assertEquals(
                "401 unauthorized: missing or wrong bearer token (Authorization: Bearer <token>)", wrong.getMessage());
    }

    @Test
    void baseWithAPathPrefix_isKept() throws IOException {
        answer = Answer.bytes(0, 0, 0);
        DedupClient.create(URI.create(base + "/dedup/")).claim("t", THREE);
        assertEquals("/dedup/v1/claims", seen.path());
    }

    @Test
    void slowAnswer_timesOut() {
        answer = new Answer(200, MediaTypes.VERDICTS, new byte[] {0, 0, 0}, null, 3_000);
        DedupClient client =
                DedupClient.builder(base).timeout(Duration.ofMillis(200)).build();

        assertThrows(HttpTimeoutException.class, () -> client.claim("t", THREE));
    }

    @Test
    void unreachableAgent_isAnIOException() throws IOException {
        int port;
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = s.getLocalPort();
        }
        DedupClient client = DedupClient.create(URI.create("http://127.0.0.1:" + port));

        IOException e = assertThrows(IOException.class, () -> client.claim("t", THREE));
        assertFalse(e instanceof DedupException);
    }

    @Test
    void builder_rejectsBadSettings_namingThem() {
        IllegalArgumentException e = assertThrows(
                IllegalArgumentException.class, () -> DedupClient.create(URI.create("ftp://127.0.0.1:7070")));
        assertTrue(e.getMessage().startsWith("base: "), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> DedupClient.create(URI.create("http://h:1/?q=1")));
        e = assertThrows(
                IllegalArgumentException.class, () -> DedupClient.builder(base).timeout(Duration.ZERO));
        assertTrue(e.getMessage().startsWith("timeout: "), e.getMessage());
        e = assertThrows(
                IllegalArgumentException.class, () -> DedupClient.builder(base).connectTimeout(Duration.ofSeconds(-1)));
        assertTrue(e.getMessage().startsWith("connectTimeout: "), e.getMessage());
        e = assertThrows(
                IllegalArgumentException.class, () -> DedupClient.builder(base).token("a b"));
        assertTrue(e.getMessage().startsWith("token: "), e.getMessage());
        assertThrows(
                IllegalArgumentException.class, () -> DedupClient.builder(base).token("x\r\nEvil: 1"));
    }

    @Test
    void oversizedNamespace_failsBeforeSending() {
        DedupClient client = DedupClient.create(base);
        assertThrows(IllegalArgumentException.class, () -> client.claim("n".repeat(256), THREE));
        assertNull(seen);
    }

    private static Answer json(String body) {
        return new Answer(200, MediaTypes.JSON, body.getBytes(StandardCharsets.UTF_8), null, 0);
    }

    @Test
    void checkRanges_postsTheRangesAsJson_andReadsTheDonePartsOfEach() throws IOException {
        answer = json("{\"done\":[[{\"from\":\"5\",\"to\":\"9\"},{\"from\":\"20\",\"to\":\"30\"}],[]]}");
        List<SequenceRange> asked = List.of(SequenceRange.of(0, 30), SequenceRange.of(40, 50));
        List<List<SequenceRange>> done = DedupClient.create(base).checkRanges("orders", "shard-1", asked);
        assertEquals(List.of(List.of(SequenceRange.of(5, 9), SequenceRange.of(20, 30)), List.of()), done);
        assertEquals("/v1/ranges/check", seen.path());
        assertEquals(MediaTypes.JSON, seen.contentType());
        assertEquals(
                "{\"ns\":\"orders\",\"stream\":\"shard-1\",\"ranges\":[{\"from\":\"0\",\"to\":\"30\"},"
                        + "{\"from\":\"40\",\"to\":\"50\"}]}",
                new String(seen.body(), StandardCharsets.UTF_8));
    }

    @Test
    void commitRanges_postsToCommit_andWantsOneTruePerRange() throws IOException {
        answer = json("{\"committed\":[true]}");
        DedupClient.create(base).commitRanges(null, "s", List.of(SequenceRange.after("99", "90", "199")));
        assertEquals("/v1/ranges/commit", seen.path());
        assertEquals(
                "{\"ns\":\"default\",\"stream\":\"s\",\"ranges\":[{\"from\":\"100\",\"to\":\"199\"}]}",
                new String(seen.body(), StandardCharsets.UTF_8));
        answer = json("{\"committed\":[]}");
        DedupException wrong = assertThrows(
                DedupException.class,
                () -> DedupClient.create(base).commitRanges(null, "s", List.of(SequenceRange.of(1, 2))));
        assertEquals(DedupException.INVALID_RESPONSE, wrong.error());
    }

    @Test
    void rangeAnswersThatAreNotTheContractsAreInvalidResponses_andErrorsKeepTheirCode() {
        DedupClient client = DedupClient.create(base);
        List<SequenceRange> one = List.of(SequenceRange.of(1, 2));
        for (String body : List.of(
                "{\"done\":[]}",
                "{\"done\":[[{\"from\":\"9\",\"to\":\"1\"}]]}",
                "{\"done\":[[{\"from\":1,\"to\":\"2\"}]]}",
                "[]",
                "{\"done\":[[]]")) {
            answer = json(body);
            DedupException e = assertThrows(DedupException.class, () -> client.checkRanges("n", "s", one), body);
            assertEquals(DedupException.INVALID_RESPONSE, e.error(), body);
        }
        answer = Answer.error(400, "{\"error\":\"bad_request\",\"message\":\"ranges[0].from: leading zero\"}", null);
        DedupException bad = assertThrows(DedupException.class, () -> client.checkRanges("n", "s", one));
        assertEquals("bad_request", bad.error());
        assertThrows(IllegalArgumentException.class, () -> client.checkRanges("n", "", one));
    }
}
