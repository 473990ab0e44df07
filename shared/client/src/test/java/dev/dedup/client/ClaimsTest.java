package dev.dedup.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpServer;
import dev.dedup.wire.Item;
import dev.dedup.wire.MediaTypes;
import dev.dedup.wire.Verdict;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Patience against a loopback server that answers from a script of statuses; time is a fake clock's. */
class ClaimsTest {

    private static final List<Item> TWO = List.of(new Item("a", "t:0:1"), new Item("b", "t:0:2"));

    private HttpServer server;
    private URI base;
    private final Deque<Integer> statuses = new ArrayDeque<>();
    private int calls;
    private String retryAfter;

    /** Time that moves only when the code under test pauses. */
    private static final class FakeClock implements Claims.Clock {
        long now;
        final List<Long> pauses = new ArrayList<>();

        @Override
        public long nanoTime() {
            return now;
        }

        @Override
        public void sleep(long millis) {
            pauses.add(millis);
            now += Duration.ofMillis(millis).toNanos();
        }
    }

    @BeforeEach
    void start() throws IOException {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.createContext("/", exchange -> {
            try (exchange) {
                exchange.getRequestBody().readAllBytes();
                calls++;
                int status = statuses.isEmpty() ? 200 : statuses.poll();
                byte[] body = status == 200
                        ? new byte[] {0, 2}
                        : ("{\"error\":\"" + (status == 503 ? "unavailable" : "unauthorized")
                                        + "\",\"message\":\"scripted\"}")
                                .getBytes(StandardCharsets.UTF_8);
                exchange.getResponseHeaders()
                        .set("Content-Type", status == 200 ? MediaTypes.VERDICTS : "application/json");
                if (status == 503 && retryAfter != null) {
                    exchange.getResponseHeaders().set("Retry-After", retryAfter);
                }
                exchange.sendResponseHeaders(status, body.length);
                exchange.getResponseBody().write(body);
            }
        });
        server.start();
        base = URI.create("http://127.0.0.1:" + server.getAddress().getPort());
    }

    @AfterEach
    void stop() {
        server.stop(0);
    }

    /** Claims in namespace {@code ns} at the test's agent, waiting on {@code clock}. */
    private Claims claims(Duration patience, FakeClock clock) {
        return new Claims(DedupClient.create(base), "ns", patience, clock);
    }

    @Test
    void claim_sendsTheSameItemsAgainWhileTheAgentAnswers503_backingOff() throws Exception {
        statuses.addAll(List.of(503, 503, 503));
        FakeClock clock = new FakeClock();

        List<Verdict> verdicts = claims(Duration.ofSeconds(60), clock).claim(TWO);

        assertEquals(List.of(Verdict.NEW, Verdict.DUPLICATE), verdicts);
        assertEquals(4, calls);
        assertEquals(List.of(50L, 100L, 200L), clock.pauses);
    }

    @Test
    void claim_throwsTheLastFailure_whenThePatienceRunsOut() {
        for (int i = 0; i < 100; i++) {
            statuses.add(503);
        }
        FakeClock clock = new FakeClock();

        DedupException e = assertThrows(
                DedupException.class, () -> claims(Duration.ofSeconds(3), clock).claim(TWO));

        assertEquals(503, e.status());
        assertEquals(Duration.ofSeconds(3).toNanos(), clock.now, "waited the patience out, not past it");
        assertEquals(List.of(50L, 100L, 200L, 400L, 800L, 1000L, 450L), clock.pauses);
    }

    @Test
    void claim_waitsA503sRetryAfter_whenItIsLongerThanThePause() throws Exception {
        statuses.addAll(List.of(503, 503));
        retryAfter = "2";
        FakeClock clock = new FakeClock();

        List<Verdict> verdicts = claims(Duration.ofSeconds(60), clock).claim(TWO);

        assertEquals(List.of(Verdict.NEW, Verdict.DUPLICATE), verdicts);
        assertEquals(List.of(2_000L, 2_000L), clock.pauses);
    }

    @Test
    void claim_throwsARejectionAtOnce() {
        statuses.add(401);
        FakeClock clock = new FakeClock();

        DedupException e = assertThrows(
                DedupException.class,
                () -> claims(Duration.ofSeconds(60), clock).claim(TWO));

        assertEquals(401, e.status());
        assertEquals(1, calls);
        assertEquals(List.of(), clock.pauses);
    }

    @Test
    void release_ofNothing_callsNobody() throws Exception {
        assertEquals(0, new Claims(DedupClient.create(base), "ns", Duration.ZERO).release(List.of()).length);
        assertEquals(0, calls);
    }

    @Test
    void aNegativePatience_isRefused_namingIt() {
        IllegalArgumentException e = assertThrows(
                IllegalArgumentException.class,
                () -> new Claims(DedupClient.create(base), "ns", Duration.ofSeconds(-1)));
        assertTrue(e.getMessage().startsWith("patience:"), e.getMessage());
    }
}
