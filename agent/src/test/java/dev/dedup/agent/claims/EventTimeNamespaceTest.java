package dev.dedup.agent.claims;

import static dev.dedup.agent.testing.AgentHttp.BINARY;
import static dev.dedup.agent.testing.AgentHttp.JSON;
import static dev.dedup.agent.testing.AgentHttp.text;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dedup.agent.Agent;
import dev.dedup.agent.config.AgentOptions;
import dev.dedup.agent.config.EmbeddedStoreOptions;
import dev.dedup.agent.config.HttpOptions;
import dev.dedup.agent.config.WindowOptions;
import dev.dedup.agent.testing.AgentHttp;
import dev.dedup.agent.testing.FakeClock;
import dev.dedup.wire.BatchEncoder;
import dev.dedup.wire.Item;
import io.vertx.core.json.JsonObject;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * Items with event times, over HTTP on the embedded store, in namespaces with and without an event rate: where the
 * namespace has one every item must carry {@code ts}; anywhere, a claim with one lasts until the namespace's event
 * clock (the newest event second claimed there, never past the wall) is a window after it. Each test uses fresh ids
 * and moves the clocks it relies on to the wall's second first, so tests share one agent.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class EventTimeNamespaceTest {

    private static final Duration WINDOW = Duration.ofHours(24);
    private static final String TIMED = "timed";
    private static final String PLAIN = "plain";
    private static final int RATE = 33_334;

    private final FakeClock clock = new FakeClock(1_767_225_600_000L); // 2026-01-01T00:00:00Z
    private Agent agent;
    private AgentHttp http;

    @BeforeAll
    void start(@TempDir Path dataDir) {
        agent = start(dataDir, Map.of(TIMED, RATE));
        http = new AgentHttp(agent.port());
    }

    @AfterAll
    void stop() {
        if (agent != null) {
            agent.close();
        }
    }

    private Agent start(Path dir, Map<String, Integer> eventRates) {
        return Agent.start(
                new AgentOptions(
                        HttpOptions.builder()
                                .port(0)
                                .maxBatch(100)
                                .maxBody(64 * 1024)
                                .idleTimeout(Duration.ofSeconds(30))
                                .eventLoops(2)
                                .shutdownGrace(Duration.ofSeconds(2))
                                .build(),
                        new EmbeddedStoreOptions(dir, 1 << 16, 8),
                        new WindowOptions(WINDOW, Map.of(), eventRates)),
                clock);
    }

    private static String id() {
        return UUID.randomUUID().toString();
    }

    /** Moves the namespace's event clock to the wall's second, as a stream's newest messages do. */
    private void clockToNow(String ns) {
        assertEquals(List.of("new"), http.claim(ns, List.of(new Item(id(), "clock", second(Duration.ZERO)))));
    }

    /** The clock's epoch second, moved by {@code offset}. */
    private long second(Duration offset) {
        return (clock.getAsLong() + offset.toMillis()) / 1000;
    }

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    /** Posts a claim that must be refused with 400; returns the error body. */
    private String badRequest(String path, String contentType, byte[] body) {
        HttpResponse<byte[]> r = http.post(path, contentType, body);
        String text = text(r);
        assertEquals(400, r.statusCode(), text);
        assertTrue(text.contains("\"error\":\"bad_request\""), text);
        assertEquals("application/json", r.headers().firstValue("Content-Type").orElse(""));
        return text;
    }

    // --- a namespace filed by event time needs ts on every item ---

    @Test
    void missingTs_is400NamingTheItem_andEarlierItemsOfTheBatchStayUnclaimed() {
        String first = id();
        String second = id();
        long ts = second(Duration.ZERO);
        byte[] body = utf8("{\"ns\":\"" + TIMED + "\",\"items\":[{\"id\":\"" + first + "\",\"owner\":\"o\",\"ts\":" + ts
                + "},{\"id\":\"" + second + "\",\"owner\":\"o\",\"ts\":" + ts + "},{\"id\":\"" + id()
                + "\",\"owner\":\"o\"}]}");

        String text = badRequest("/v1/claims", JSON, body);

        assertTrue(
                text.contains(
                        "items[2].ts: missing; namespace timed has an event rate" + " (namespace.timed.event-rate)"),
                text);
        assertEquals(
                List.of("new", "new"),
                http.claim(TIMED, List.of(new Item(first, "other", ts), new Item(second, "other", ts))),
                "a rejected request claimed nothing");
    }

    @Test
    void binaryBodyWithoutEventTimes_is400NamingTheFirstItem_andClaimsNothing() {
        String first = id();
        String text = badRequest(
                "/v1/claims", BINARY, BatchEncoder.binary(TIMED, List.of(new Item(first, "o"), new Item(id(), "o"))));

        assertTrue(text.contains("items[0].ts: missing"), text);
        assertEquals(List.of("new"), http.claim(TIMED, List.of(new Item(first, "other", second(Duration.ZERO)))));
    }

    @Test
    void releaseWithoutTs_is400_andReleasesNothing() {
        String id = id();
        long ts = second(Duration.ZERO);
        assertEquals(List.of("new"), http.claim(TIMED, List.of(new Item(id, "o1", ts))));

        String text = badRequest("/v1/releases", JSON, BatchEncoder.json(TIMED, List.of(new Item(id, "o1"))));

        assertTrue(text.contains("items[0].ts: missing"), text);
        assertEquals(List.of("retry"), http.claim(TIMED, List.of(new Item(id, "o1", ts))), "the claim is still held");
        assertEquals(List.of(true), http.release(TIMED, List.of(new Item(id, "o1", ts))));
        assertEquals(List.of("new"), http.claim(TIMED, List.of(new Item(id, "o2", ts))));
    }

    @Test
    void copiesWithTheSameTs_areDuplicates_andRetries_inBothFormats() {
        String id = id();
        long ts = second(Duration.ofMinutes(-3));
        assertEquals("{\"verdicts\":[\"new\"]}", http.claimJson(TIMED, List.of(new Item(id, "3:100", ts))));
        assertEquals(List.of("duplicate"), http.claim(TIMED, List.of(new Item(id, "7:555", ts))));
        assertEquals(List.of("retry"), http.claim(TIMED, List.of(new Item(id, "3:100", ts))));
    }

    // --- how long a claim lasts: until the namespace's clock is a window after its event time ---

    @Test
    void tsAWindowBehindTheClock_isLate_andClaimedForAWindowFromTheClock() {
        clockToNow(TIMED);
        String id = id();
        long stale = second(WINDOW.plusSeconds(1).negated());
        assertEquals(List.of("new"), http.claim(TIMED, List.of(new Item(id, "o1", stale))), "late: nothing held");
        assertEquals(
                List.of("duplicate", "retry"),
                http.claim(TIMED, List.of(new Item(id, "o2", stale), new Item(id, "o1", stale))),
                "its own copies that follow it are caught");
        clock.advance(WINDOW.plusSeconds(1));
        clockToNow(TIMED);
        assertEquals(
                List.of("duplicate"),
                http.claim(TIMED, List.of(new Item(id, "o3", stale))),
                "a window of the clock later: ended, and kept a window more for readers behind");
        clock.advance(WINDOW);
        clockToNow(TIMED);
        assertEquals(
                "{\"verdicts\":[\"new\"]}",
                http.claimJson(TIMED, List.of(new Item(id, "o3", stale))),
                "two windows of the clock later");
        assertEquals(List.of(true), http.release(TIMED, List.of(new Item(id, "o3", stale))));
        String old = id();
        assertEquals(
                List.of("new", "duplicate"),
                http.claim(TIMED, List.of(new Item(old, "o4", 1), new Item(old, "o5", 1))),
                "the first second of 1970");
    }

    @Test
    void claimEndsAWindowAfterItsEventTime_onTheNamespacesClock_notAWindowAfterTheClaim() {
        clockToNow(TIMED);
        String id = id();
        long ts = second(WINDOW.minusSeconds(10).negated());
        assertEquals(List.of("new"), http.claim(TIMED, List.of(new Item(id, "o1", ts))));
        clock.advance(Duration.ofSeconds(9));
        clockToNow(TIMED);
        assertEquals(List.of("duplicate"), http.claim(TIMED, List.of(new Item(id, "o2", ts))), "a second left");
        clock.advance(Duration.ofSeconds(2));
        assertEquals(
                List.of("duplicate"),
                http.claim(TIMED, List.of(new Item(id, "o2", ts))),
                "the wall is past its end, but no newer event was claimed: the stream stands still");
        clockToNow(TIMED);
        assertEquals(
                List.of("duplicate"),
                http.claim(TIMED, List.of(new Item(id, "o2", ts))),
                "the clock a window after the event time: a copy of the same time is kept for readers behind");
        assertEquals(
                List.of("new"),
                http.claim(TIMED, List.of(new Item(id, "o3", ts + WINDOW.toSeconds()))),
                "a message a window later is another");
    }

    @Test
    void tsFarAhead_isRememberedAtMostTwoWindows() {
        clockToNow(TIMED);
        String id = id();
        long ts = second(Duration.ofDays(365));
        assertEquals(List.of("new"), http.claim(TIMED, List.of(new Item(id, "o1", ts))));
        clock.advance(WINDOW.multipliedBy(2).minusSeconds(1));
        clockToNow(TIMED);
        assertEquals(List.of("duplicate"), http.claim(TIMED, List.of(new Item(id, "o2", ts))));
        clock.advance(Duration.ofSeconds(2));
        clockToNow(TIMED);
        assertEquals(List.of("new"), http.claim(TIMED, List.of(new Item(id, "o2", ts))));
    }

    // --- a namespace without an event rate: the same clock ---

    @Test
    void anotherTsWithinTheWindow_isTheSameMessage_andTheEmbeddedStoreFindsItWithoutTsToo() {
        // The embedded store finds a claim by its id's key alone, and once a namespace has an event clock it ends
        // every claim of the namespace on it; the Redis tier keeps claims with and without event times in tables of
        // their own (docs/api.md, "Event time").
        String id = id();
        long ts = second(Duration.ZERO);
        assertEquals(List.of("new"), http.claim(PLAIN, List.of(new Item(id, "o1", ts))));
        assertEquals(
                List.of("duplicate"),
                http.claim(PLAIN, List.of(new Item(id, "o2", ts + 3600))),
                "another event time within the window is the same message");
        assertEquals(List.of("retry"), http.claim(PLAIN, List.of(new Item(id, "o1", ts + 7200))));
        assertEquals(List.of("duplicate"), http.claim(PLAIN, List.of(new Item(id, "o2"))), "or none at all");
        assertEquals(
                "{\"verdicts\":[\"retry\",\"duplicate\"]}",
                http.claimJson(PLAIN, List.of(new Item(id, "o1"), new Item(id, "o3", 1))),
                "a mix is fine in JSON");
    }

    @Test
    void aReplayedStreamKeepsItsClaims_whileItsClockStandsStill_inANamespaceWithoutAnEventRate() {
        String lagging = "replayed";
        String id = id();
        long old = second(WINDOW.multipliedBy(3).negated());
        assertEquals(List.of("new"), http.claim(lagging, List.of(new Item(id, "o1", old))));
        assertEquals(List.of("duplicate"), http.claim(lagging, List.of(new Item(id, "o2", old))));
        clock.advance(WINDOW.multipliedBy(2));
        assertEquals(
                List.of("duplicate"),
                http.claim(lagging, List.of(new Item(id, "o2", old + 60))),
                "three windows behind the wall, two windows of the wall later: the stream's own time moved a minute");
        assertEquals(
                List.of("new"),
                http.claim(lagging, List.of(new Item(id(), "o1", old + 2 * WINDOW.toSeconds() + 1))),
                "a newer message moves the clock a window past the first claim's end");
        assertEquals(List.of("new"), http.claim(lagging, List.of(new Item(id, "o3", old))), "late now");
    }

    @Test
    void sameIdWithAnotherTs_isStillFoundByTheEmbeddedStore() {
        // Copies must carry the same ts (Tapjoy's contract). The embedded store finds a claim by id alone,
        // the event time only setting its end, so a copy stamped with another second is still a duplicate
        // here; Redis's time buckets would answer new (docs/api.md, "Event time").
        String id = id();
        long ts = second(Duration.ZERO);
        assertEquals(List.of("new"), http.claim(TIMED, List.of(new Item(id, "o1", ts))));
        assertEquals(List.of("duplicate"), http.claim(TIMED, List.of(new Item(id, "o2", ts - 60))));
        assertEquals(List.of("retry"), http.claim(TIMED, List.of(new Item(id, "o1", ts - 60))));
    }

    // --- operations ---

    @Test
    void statsShowTheEventRates() {
        JsonObject stats = new JsonObject(text(AgentHttp.ok(http.get("/v1/stats"))));
        assertEquals(new JsonObject().put(TIMED, RATE), stats.getJsonObject("event_rates"), stats.encode());
    }

    @Test
    void starFilesEveryNamespaceByEventTime_includingTheDefault(@TempDir Path dir) {
        try (Agent every = start(dir, Map.of(WindowOptions.EVERY_NAMESPACE, 100))) {
            AgentHttp all = new AgentHttp(every.port());
            HttpResponse<byte[]> r = all.post("/v1/claims", JSON, utf8("{\"items\":[{\"id\":\"a\",\"owner\":\"o\"}]}"));
            assertEquals(400, r.statusCode(), text(r));
            assertTrue(text(r).contains("items[0].ts: missing; namespace default has an event rate"), text(r));
            assertEquals(List.of("new"), all.claim("anything", List.of(new Item("a", "o", second(Duration.ZERO)))));
            assertEquals(
                    "{\"*\":100}",
                    new JsonObject(text(AgentHttp.ok(all.get("/v1/stats"))))
                            .getJsonObject("event_rates")
                            .encode());
        }
    }
}
