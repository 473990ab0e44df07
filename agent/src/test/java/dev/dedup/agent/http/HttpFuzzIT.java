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
import io.vertx.core.json.JsonObject;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Hostile HTTP at the agent, over real sockets: valid claim and release requests, then mutated — bodies
 * with flipped, inserted or cut bytes, oversized bodies, odd or missing content types, chunked bodies, lying
 * {@code Content-Length}s, wrong methods and paths, garbage request lines and headers. Every answer must be
 * below 500, every 4xx of the API must carry {@code error} and {@code message}, and nothing may be claimed
 * by a rejected request: the claims the store counts equal the verdicts of the 200 answers, and the ids of
 * rejected requests, sent again intact, are all {@code new}. Requests: {@code -Dfuzz.http.requests}
 * (default 12,000), seed {@code -Dfuzz.seed}.
 */
class HttpFuzzIT {

    private static final int MAX_BATCH = 100;
    private static final int MAX_BODY = 64 * 1024;
    private static final String[] TYPES = {"application/json", "application/x-dedup-batch", "text/plain", "",
        "APPLICATION/JSON", "application/json; charset=utf-8", "application/x-dedup-batch; v=2",
        "multipart/form-data; boundary=x", "application/x-dedup-verdicts", "application/octet-stream"};

    @TempDir
    Path dir;

    /**
     * One request as sent, and what it was made from: {@code claims} when it is a POST to /v1/claims (its 200
     * answer claims), {@code intact} when its body framing is honest (so a rejection must claim nothing
     * of {@code original}), {@code endsEarly} when the body is shorter than its Content-Length says.
     */
    private record Sent(byte[] bytes, boolean claims, boolean intact, boolean apiRequest, boolean endsEarly,
                        List<Item> original) {
    }

    @Test
    void mutatedRequests_getOnlyClear4xxOr200_andRejectedOnesClaimNothing() throws Exception {
        int requests = Integer.getInteger("fuzz.http.requests", 12_000);
        long seed = Long.getLong("fuzz.seed", 20261122L);
        SplittableRandom random = new SplittableRandom(seed);
        try (Agent agent = Agent.start(new AgentOptions(
                new HttpOptions("127.0.0.1", 0, MAX_BATCH, MAX_BODY, Duration.ofSeconds(2), 2, Duration.ofSeconds(1)),
                new EmbeddedStoreOptions(dir, 1 << 16, 8), WindowOptions.defaults()))) {
            Map<Integer, Integer> statuses = new TreeMap<>();
            long verdictsAnswered = 0;
            long unanswered = 0;
            List<List<Item>> rejected = new ArrayList<>();
            long start = System.nanoTime();
            for (int r = 0; r < requests; r++) {
                Sent sent = request(r, random);
                Answer answer = send(agent.port(), sent.bytes(), sent.endsEarly());
                if (answer == null) {
                    // Only requests that are not HTTP the server can frame may go unanswered.
                    assertTrue(!sent.apiRequest(), "request " + r + " got no answer: " + show(sent.bytes()));
                    unanswered++;
                    continue;
                }
                statuses.merge(answer.status, 1, Integer::sum);
                assertTrue(answer.status < 500, "request " + r + " answered " + answer.status + " "
                        + answer.text() + " to " + show(sent.bytes()));
                if (answer.status >= 400 && sent.apiRequest() && answer.status != 404 && answer.status != 405) {
                    JsonObject error = new JsonObject(answer.text());
                    assertTrue(error.containsKey("error") && error.containsKey("message"), answer.text());
                }
                if (sent.claims()) {
                    if (answer.status == 200) {
                        verdictsAnswered += verdicts(answer);
                    } else if (sent.intact() && sent.original().size() <= MAX_BATCH && rejected.size() < 500) {
                        rejected.add(sent.original());
                    }
                }
            }
            double seconds = (System.nanoTime() - start) / 1e9;

            AgentHttp http = new AgentHttp(agent.port());
            JsonObject claims = new JsonObject(AgentHttp.text(http.get("/v1/stats"))).getJsonObject("claims");
            long counted = claims.getLong("new") + claims.getLong("retry") + claims.getLong("duplicate");
            assertEquals(verdictsAnswered, counted, "the store counts exactly the verdicts of the 200 answers");
            for (List<Item> items : rejected) {
                assertEquals(Collections.nCopies(items.size(), "new"), http.claim("fz", items),
                        "a rejected request claimed nothing");
            }
            System.out.printf(Locale.ROOT, "http fuzz: %,d requests in %.1f s, seed %d, statuses %s, %,d closed"
                    + " without an answer, %,d verdicts answered, %d rejected requests re-sent intact%n", requests,
                    seconds, seed, statuses, unanswered, verdictsAnswered, rejected.size());
            assertTrue(statuses.getOrDefault(200, 0) > requests / 10, "enough requests got through: " + statuses);
            assertTrue(statuses.getOrDefault(400, 0) > 0 && statuses.getOrDefault(413, 0) > 0
                    && statuses.getOrDefault(415, 0) > 0, "the error paths were reached: " + statuses);
        }
    }

    private static Sent request(int r, SplittableRandom random) {
        List<Item> items = new ArrayList<>();
        int n = 1 + random.nextInt(random.nextInt(10) == 0 ? MAX_BATCH + 20 : 20);
        // A random token per request: a flipped byte turns an id into one no other request sends.
        String token = Long.toHexString(random.nextLong());
        for (int i = 0; i < n; i++) {
            items.add(new Item("f" + r + "-" + token + "-" + i, "o" + r));
        }
        boolean json = random.nextBoolean();
        byte[] body = json ? BatchEncoder.json("fz", items) : BatchEncoder.binary("fz", items);
        String type = json ? "application/json" : "application/x-dedup-batch";
        String method = "POST";
        String path = random.nextInt(5) == 0 ? "/v1/releases" : "/v1/claims";
        boolean chunked = false;
        Integer lyingLength = null;
        boolean apiRequest = true;
        String garbageLine = null;
        switch (random.nextInt(12)) {
            case 0, 1 -> { } // intact
            case 2 -> body = flip(body, random);
            case 3 -> body = java.util.Arrays.copyOf(body, random.nextInt(body.length + 1));
            case 4 -> body = insert(body, random);
            case 5 -> type = TYPES[random.nextInt(TYPES.length)];
            case 6 -> body = java.util.Arrays.copyOf(body, MAX_BODY + 1 + random.nextInt(4096));
            case 7 -> {
                method = new String[] {"GET", "PUT", "DELETE", "PATCH"}[random.nextInt(4)];
                path = new String[] {"/v1/claims", "/v1/claimz", "/", "/v1/claims/x", "/v1/stats"}[random.nextInt(5)];
            }
            case 8 -> {
                chunked = true;
                if (random.nextBoolean()) {
                    body = flip(body, random);
                }
            }
            case 9 -> {
                lyingLength = Math.max(0, body.length + random.nextInt(-body.length, 40));
                apiRequest = false; // a longer length than the body leaves the server waiting: allowed to time out
            }
            case 10 -> {
                garbageLine = new String[] {"POST /v1/claims HTTP/9.9", "\u0000\u0001\u0002", "POST  HTTP/1.1",
                    "GARBAGE", "POST /v1/claims HTTP/1.1\r\nX-Bad: \u0001\u007f"}[random.nextInt(5)];
                apiRequest = false;
            }
            default -> {
                body = flip(insert(body, random), random);
                type = TYPES[random.nextInt(TYPES.length)];
            }
        }
        ByteArrayOutputStream out = new ByteArrayOutputStream(body.length + 256);
        String head = (garbageLine != null ? garbageLine : method + " " + path + " HTTP/1.1") + "\r\nHost: 127.0.0.1\r\n"
                + "Connection: close\r\n" + (type.isEmpty() ? "" : "Content-Type: " + type + "\r\n");
        if (chunked) {
            head += "Transfer-Encoding: chunked\r\n\r\n";
            out.writeBytes(head.getBytes(StandardCharsets.ISO_8859_1));
            int at = 0;
            while (at < body.length) {
                int len = Math.min(body.length - at, 1 + random.nextInt(700));
                out.writeBytes((Integer.toHexString(len) + "\r\n").getBytes(StandardCharsets.US_ASCII));
                out.write(body, at, len);
                out.writeBytes("\r\n".getBytes(StandardCharsets.US_ASCII));
                at += len;
            }
            out.writeBytes("0\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
        } else {
            head += "Content-Length: " + (lyingLength != null ? lyingLength : body.length) + "\r\n\r\n";
            out.writeBytes(head.getBytes(StandardCharsets.ISO_8859_1));
            out.writeBytes(body);
        }
        boolean claims = path.equals("/v1/claims") && method.equals("POST") && garbageLine == null;
        boolean endsEarly = lyingLength != null && lyingLength > body.length;
        return new Sent(out.toByteArray(), claims, lyingLength == null, apiRequest, endsEarly, items);
    }

    private static byte[] flip(byte[] body, SplittableRandom random) {
        byte[] b = body.clone();
        for (int i = 0, n = 1 + random.nextInt(5); i < n && b.length > 0; i++) {
            b[random.nextInt(b.length)] ^= (byte) (1 << random.nextInt(8));
        }
        return b;
    }

    private static byte[] insert(byte[] body, SplittableRandom random) {
        int at = random.nextInt(body.length + 1);
        byte[] junk = new byte[1 + random.nextInt(8)];
        for (int i = 0; i < junk.length; i++) {
            junk[i] = (byte) random.nextInt(256);
        }
        byte[] b = new byte[body.length + junk.length];
        System.arraycopy(body, 0, b, 0, at);
        System.arraycopy(junk, 0, b, at, junk.length);
        System.arraycopy(body, at, b, at + junk.length, body.length - at);
        return b;
    }

    /** A status and the body after the headers. */
    private record Answer(int status, String headers, byte[] body) {
        String text() {
            return new String(body, StandardCharsets.UTF_8);
        }
    }

    /**
     * Sends, then reads one answer: its head and as many body bytes as its Content-Length says. Null when
     * the server closed (or stayed silent for 3 s) without a status line. {@code endsEarly}: the request
     * promised more body than it has, so its end is signalled by closing the sending side.
     */
    private static Answer send(int port, byte[] request, boolean endsEarly) throws IOException {
        try (Socket s = new Socket(InetAddress.getLoopbackAddress(), port)) {
            s.setSoTimeout(3000);
            try {
                s.getOutputStream().write(request);
                s.getOutputStream().flush();
                if (endsEarly) {
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
            try {
                int n;
                while ((n = stream.read(buf)) >= 0) {
                    in.write(buf, 0, n);
                    String text = in.toString(StandardCharsets.ISO_8859_1);
                    if (headEnd < 0 && (headEnd = text.indexOf("\r\n\r\n")) >= 0) {
                        String head = text.substring(0, headEnd).toLowerCase(Locale.ROOT);
                        int cl = head.indexOf("content-length:");
                        bodyLength = cl < 0 ? 0 : Integer.parseInt(head.substring(cl + 15, head.indexOf('\r', cl) < 0
                                ? head.length() : head.indexOf('\r', cl)).trim());
                    }
                    if (headEnd >= 0 && in.size() >= headEnd + 4 + bodyLength) {
                        break;
                    }
                }
            } catch (SocketTimeoutException | java.net.SocketException e) {
                // what arrived so far is what we have
            }
            byte[] all = in.toByteArray();
            String text = new String(all, StandardCharsets.ISO_8859_1);
            if (!text.startsWith("HTTP/1.1 ") || headEnd < 0) {
                return null;
            }
            int status = Integer.parseInt(text.substring(9, 12));
            byte[] body = java.util.Arrays.copyOfRange(all, headEnd + 4, Math.min(all.length, headEnd + 4 + bodyLength));
            return new Answer(status, text.substring(0, headEnd), body);
        }
    }

    /** Verdicts in a 200 answer to a claim: bytes of a binary answer, entries of a JSON one. */
    private static int verdicts(Answer answer) {
        if (answer.headers().toLowerCase(Locale.ROOT).contains("content-type: application/x-dedup-verdicts")) {
            return answer.body().length;
        }
        return new JsonObject(answer.text()).getJsonArray("verdicts").size();
    }

    private static String show(byte[] request) {
        String s = new String(request, 0, Math.min(request.length, 300), StandardCharsets.ISO_8859_1);
        return s.replace("\r", "\\r").replace("\n", "\\n");
    }
}
