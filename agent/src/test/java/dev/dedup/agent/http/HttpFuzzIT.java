package dev.dedup.agent.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.dedup.agent.Agent;
import dev.dedup.agent.config.AgentOptions;
import dev.dedup.agent.config.EmbeddedStoreOptions;
import dev.dedup.agent.config.WindowOptions;
import dev.dedup.agent.http.HttpMutations.Kind;
import dev.dedup.agent.http.HttpMutations.Sent;
import dev.dedup.agent.testing.AgentHttp;
import dev.dedup.agent.testing.AgentUnderTest;
import dev.dedup.wire.Item;
import io.vertx.core.json.DecodeException;
import io.vertx.core.json.JsonObject;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Hostile HTTP at the agent, over real sockets: valid claim and release requests, then mutated by
 * {@link HttpMutations} — bodies with flipped, inserted or cut bytes, oversized bodies, odd or missing content
 * types, chunked bodies, lying {@code Content-Length}s, wrong methods and paths — or with their framing broken:
 * chunk sizes that are not hex, chunk data without its CRLF or shorter than its size, a {@code Content-Length}
 * that is not a number, negative or given twice, a header over 8 KB, a URI over 4 KB, bare LF line endings, a
 * space before a header's colon, garbage request lines, an HTTP version other than 1.0 and 1.1.
 *
 * <p>Every 4xx must be {@code application/json} with string fields {@code error} and {@code message}; no answer
 * may be a 5xx but the 501 that Vert.x core sends, before any handler runs, to an unsupported version; a request
 * with broken framing is never accepted, and the server closes its connection after the answer. Only a request
 * that promises bytes it never sends may go unanswered. Nothing may be claimed by a rejected request: the claims
 * the store counts equal the verdicts of the 200 answers, and the ids of rejected requests, sent again intact,
 * are all {@code new}. Requests: {@code -Dfuzz.http.requests} (default 12,000), seed {@code -Dfuzz.seed}.
 */
class HttpFuzzIT {

    /** A status line of any version: Vert.x answers in the request's version, {@code HTTP/1.0} and others. */
    private static final Pattern STATUS_LINE = Pattern.compile("[^ /\r\n]+/\\d+\\.\\d+ (\\d{3})(?: [^\r\n]*)?");

    private static final int REJECTED_PER_KIND = 40;

    @TempDir
    Path dir;

    @Test
    void mutatedRequests_getOnlyClear4xxOr200_andRejectedOnesClaimNothing() throws Exception {
        int requests = Integer.getInteger("fuzz.http.requests", 12_000);
        long seed = Long.getLong("fuzz.seed", 20261122L);
        SplittableRandom random = new SplittableRandom(seed);
        try (Agent agent = Agent.start(new AgentOptions(
                AgentUnderTest.http()
                        .maxBatch(HttpMutations.MAX_BATCH)
                        .maxBody(HttpMutations.MAX_BODY)
                        .idleTimeout(Duration.ofSeconds(2))
                        .eventLoops(2)
                        .build(),
                new EmbeddedStoreOptions(dir, 1 << 16, 8),
                WindowOptions.defaults()))) {
            Map<Integer, Integer> statuses = new TreeMap<>();
            Map<Kind, Map<Integer, Integer>> framing = new EnumMap<>(Kind.class); // status 0: closed, no answer
            long verdictsAnswered = 0;
            long unanswered = 0;
            Map<Kind, List<List<Item>>> rejected = new EnumMap<>(Kind.class);
            long start = System.nanoTime();
            for (int r = 0; r < requests; r++) {
                Sent sent = HttpMutations.request(r, random);
                Answer answer = send(agent.port(), sent);
                int status = answer == null ? 0 : answer.status();
                if (sent.breaksFraming()) {
                    framing.computeIfAbsent(sent.kind(), k -> new TreeMap<>()).merge(status, 1, Integer::sum);
                }
                if (answer == null) {
                    assertTrue(
                            sent.endsEarly(),
                            "request " + r + " (" + sent.kind() + ") got no answer: " + show(sent.bytes()));
                    unanswered++;
                } else {
                    statuses.merge(status, 1, Integer::sum);
                    check(r, sent, answer);
                }
                if (sent.claims() && status == 200) {
                    verdictsAnswered += verdicts(answer);
                } else if (sent.claims() && sent.intact() && sent.original().size() <= HttpMutations.MAX_BATCH) {
                    List<List<Item>> ofKind = rejected.computeIfAbsent(sent.kind(), k -> new ArrayList<>());
                    if (ofKind.size() < REJECTED_PER_KIND) {
                        ofKind.add(sent.original());
                    }
                }
            }
            double seconds = (System.nanoTime() - start) / 1e9;

            AgentHttp http = new AgentHttp(agent.port());
            JsonObject claims = new JsonObject(AgentHttp.text(http.get("/v1/stats"))).getJsonObject("claims");
            long counted = claims.getLong("new") + claims.getLong("retry") + claims.getLong("duplicate");
            assertEquals(verdictsAnswered, counted, "the store counts exactly the verdicts of the 200 answers");
            int resent = 0;
            for (Map.Entry<Kind, List<List<Item>>> ofKind : rejected.entrySet()) {
                for (List<Item> items : ofKind.getValue()) {
                    assertEquals(
                            Collections.nCopies(items.size(), "new"),
                            http.claim("fz", items),
                            "a request rejected as " + ofKind.getKey() + " claimed nothing");
                    resent++;
                }
            }
            System.out.printf(
                    Locale.ROOT,
                    "http fuzz: %,d requests in %.1f s, seed %d, statuses %s, %,d closed"
                            + " without an answer, %,d verdicts answered, %d rejected requests re-sent intact%n"
                            + "http fuzz: broken framing, statuses by kind (0: closed without an answer): %s%n",
                    requests,
                    seconds,
                    seed,
                    statuses,
                    unanswered,
                    verdictsAnswered,
                    resent,
                    framing);
            assertTrue(statuses.getOrDefault(200, 0) > requests / 10, "enough requests got through: " + statuses);
            assertTrue(
                    statuses.getOrDefault(400, 0) > 0
                            && statuses.getOrDefault(413, 0) > 0
                            && statuses.getOrDefault(415, 0) > 0,
                    "the error paths were reached: " + statuses);
            if (requests >= 5_000) {
                assertTrue(
                        Arrays.stream(Kind.values())
                                .filter(k -> k.breaksFraming)
                                .allMatch(framing::containsKey),
                        "every way of breaking the framing was tried: " + framing.keySet());
            }
        }
    }

    /** The invariants every answer keeps; the request is shown when one breaks. */
    private static void check(int r, Sent sent, Answer answer) {
        int status = answer.status();
        String seen = "request " + r + " (" + sent.kind() + ") answered "
                + answer.head().replace("\r\n", " | ") + " " + answer.text() + "\n  to " + show(sent.bytes());
        if (status >= 500) {
            assertTrue(status == 501 && sent.kind() == Kind.BAD_VERSION, "a 5xx: " + seen);
        }
        if (sent.breaksFraming()) {
            assertTrue(status >= 400, "a request with broken framing was accepted: " + seen);
            assertTrue(answer.closedAfter(), "the connection stayed open after broken framing: " + seen);
        }
        if (status >= 400 && status < 500) {
            String type = answer.header("content-type");
            assertTrue(
                    type != null && type.split(";")[0].trim().equalsIgnoreCase("application/json"),
                    "a 4xx without Content-Type: application/json: " + seen);
            JsonObject error = null;
            try {
                error = new JsonObject(answer.text());
            } catch (DecodeException e) {
                fail("a 4xx whose body is not a JSON object: " + seen);
            }
            assertTrue(
                    error.getValue("error") instanceof String && error.getValue("message") instanceof String,
                    "a 4xx without string fields error and message: " + seen);
        }
    }

    /** A status, the head before the blank line, the body after it, and whether the server closed after it. */
    private record Answer(int status, String head, byte[] body, boolean closedAfter) {
        String text() {
            return new String(body, StandardCharsets.UTF_8);
        }

        /** The value of a header, by its lower-case name; null when absent. */
        String header(String name) {
            for (String line : head.split("\r\n")) {
                int colon = line.indexOf(':');
                if (colon > 0
                        && line.substring(0, colon)
                                .trim()
                                .toLowerCase(Locale.ROOT)
                                .equals(name)) {
                    return line.substring(colon + 1).trim();
                }
            }
            return null;
        }
    }

    /**
     * Sends, then reads one answer: its head and as many body bytes as its Content-Length says. Null when
     * the server closed (or stayed silent for 3 s) without a status line. A request that promised more than it
     * has signals its end by closing the sending side. After a request with broken framing, also waits (up to 3
     * s) to see the server close the connection, with nothing more said.
     */
    private static Answer send(int port, Sent sent) throws IOException {
        try (Socket s = new Socket(InetAddress.getLoopbackAddress(), port)) {
            s.setSoTimeout(3000);
            try {
                s.getOutputStream().write(sent.bytes());
                s.getOutputStream().flush();
                if (sent.endsEarly()) {
                    s.shutdownOutput();
                }
            } catch (IOException e) {
                // the server may close early on a request it rejects (a body over max-body): read what it said
            }
            ByteArrayOutputStream in = new ByteArrayOutputStream();
            InputStream stream = s.getInputStream();
            byte[] buf = new byte[8192];
            int headEnd = -1;
            int bodyLength = -1;
            int n = 0;
            try {
                while ((n = stream.read(buf)) >= 0) {
                    in.write(buf, 0, n);
                    String text = in.toString(StandardCharsets.ISO_8859_1);
                    if (headEnd < 0 && (headEnd = text.indexOf("\r\n\r\n")) >= 0) {
                        String head = text.substring(0, headEnd).toLowerCase(Locale.ROOT);
                        int cl = head.indexOf("content-length:");
                        bodyLength = cl < 0
                                ? 0
                                : Integer.parseInt(head.substring(
                                                cl + 15,
                                                head.indexOf('\r', cl) < 0 ? head.length() : head.indexOf('\r', cl))
                                        .trim());
                    }
                    if (headEnd >= 0 && in.size() >= headEnd + 4 + bodyLength) {
                        break;
                    }
                }
            } catch (SocketTimeoutException | SocketException e) {
                // what arrived so far is what we have
            }
            byte[] all = in.toByteArray();
            String text = new String(all, StandardCharsets.ISO_8859_1);
            int lineEnd = text.indexOf("\r\n");
            Matcher statusLine = STATUS_LINE.matcher(lineEnd < 0 ? text : text.substring(0, lineEnd));
            if (headEnd < 0 || !statusLine.matches()) {
                return null;
            }
            int end = Math.min(all.length, headEnd + 4 + bodyLength);
            boolean closed = n < 0 || all.length == end && sent.breaksFraming() && closes(stream);
            return new Answer(
                    Integer.parseInt(statusLine.group(1)),
                    text.substring(0, headEnd),
                    Arrays.copyOfRange(all, headEnd + 4, end),
                    closed);
        }
    }

    /** True when the server closes (or resets) the connection without sending anything more. */
    private static boolean closes(InputStream stream) throws IOException {
        try {
            return stream.read() < 0;
        } catch (SocketTimeoutException e) {
            return false;
        } catch (SocketException e) {
            return true;
        }
    }

    /** Verdicts in a 200 answer to a claim: bytes of a binary answer, entries of a JSON one. */
    private static int verdicts(Answer answer) {
        String type = answer.header("content-type");
        if (type != null && type.startsWith("application/x-dedup-verdicts")) {
            return answer.body().length;
        }
        return new JsonObject(answer.text()).getJsonArray("verdicts").size();
    }

    /** The first 300 bytes of a request, CR, LF and other bytes outside printable ASCII escaped. */
    private static String show(byte[] request) {
        StringBuilder s = new StringBuilder();
        for (int i = 0; i < Math.min(request.length, 300); i++) {
            int b = request[i] & 0xff;
            s.append(
                    b == '\r'
                            ? "\\r"
                            : b == '\n'
                                    ? "\\n"
                                    : b < 0x20 || b >= 0x7f
                                            ? String.format(Locale.ROOT, "\\x%02x", b)
                                            : String.valueOf((char) b));
        }
        return s.toString();
    }
}
