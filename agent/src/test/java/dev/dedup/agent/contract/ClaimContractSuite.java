package dev.dedup.agent.contract;

import static dev.dedup.agent.testing.AgentHttp.BINARY;
import static dev.dedup.agent.testing.AgentHttp.JSON;
import static dev.dedup.agent.testing.AgentHttp.text;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeFalse;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.dedup.agent.config.WindowMode;
import dev.dedup.agent.config.WindowOptions;
import dev.dedup.agent.testing.AgentHttp;
import dev.dedup.agent.testing.ProjectVersion;
import dev.dedup.wire.BatchEncoder;
import dev.dedup.wire.Item;
import io.vertx.core.json.JsonObject;
import java.io.ByteArrayOutputStream;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/**
 * The contract of docs/api.md, written once and run against every store: a subclass names its stores and how
 * their items carry time, as the arguments of a parameterized class; every test here talks HTTP to the agent. Each test uses fresh ids, so tests share one agent.
 */
public abstract class ClaimContractSuite extends AgentSuite {

    /** A namespace whose window slides (not in suites that file every namespace by event time). */
    protected static final String SLIDING_NS = "sliding";

    protected static final Duration SLIDING_WINDOW = Duration.ofSeconds(10);

    /** A namespace of a 4-second window, where claims with event times are looked at as a job falls behind. */
    protected static final String LAG_NS = "lag";

    protected static final Duration LAG_WINDOW = Duration.ofSeconds(4);

    /**
     * The windows the agent is started with: {@link #WINDOW}, {@link #SHORT_WINDOW} for {@link #SHORT_NS}, {@link
     * #LAG_WINDOW} for {@link #LAG_NS}, and a sliding {@link #SLIDING_WINDOW} for {@link #SLIDING_NS}. With {@link
     * #timeBuckets()}, every namespace is filed in time buckets at 200 ids a second instead (2 buckets a second, so
     * that the suite's claims share buckets), and none slides.
     */
    @Override
    protected WindowOptions windows() {
        if (timeBuckets()) {
            return new WindowOptions(
                    WINDOW,
                    Map.of(SHORT_NS, SHORT_WINDOW, LAG_NS, LAG_WINDOW),
                    Map.of(WindowOptions.EVERY_NAMESPACE, 200));
        }
        return new WindowOptions(
                WINDOW,
                Map.of(SHORT_NS, SHORT_WINDOW, SLIDING_NS, SLIDING_WINDOW, LAG_NS, LAG_WINDOW),
                Map.of(),
                Map.of(SLIDING_NS, WindowMode.SLIDING));
    }

    /**
     * The event second of every id made by {@link #id()}: the clock's second when it was made; and where windows
     * count on event clocks, of every copy of it (id and owner): the clock's second when its owner first sent it.
     */
    private final Map<String, Long> eventSeconds = new ConcurrentHashMap<>();

    /** How this run's items carry time, and what windows count on. */
    protected abstract Events events();

    /**
     * Whether the agent under test files claims by event time ({@link #windows()}): then every item is sent
     * with an event second, and raw bodies carry it too. A message is stamped once, when it is made; where windows
     * count on event clocks each copy is stamped when it is sent, as a producer that sends a message again (or a
     * broker that stamps what it is given) does, and the window lies between their stamps.
     */
    protected final boolean eventTimes() {
        return events().eventTimes;
    }

    /**
     * With {@link #eventTimes()}: whether every namespace is filed in per-second time buckets (an event rate set for
     * {@code *}); else items carry event times in namespaces with no event setting, and each namespace's window
     * counts on its event clock.
     */
    protected final boolean timeBuckets() {
        return events().timeBuckets;
    }

    /**
     * Whether windows count on the namespaces' event clocks and copies are stamped when sent: where items carry
     * event times in namespaces with no event setting, or on the embedded store. (Time buckets count on event
     * clocks too, but every copy of a message carries its stamp.)
     */
    protected final boolean eventClocks() {
        return events().eventClocks;
    }

    /** How items carry time, and what their windows count on. */
    public enum Events {
        /** No event times: windows count on the wall clock. */
        NONE(false, false, false),
        /** Every item carries its event time and no namespace has an event setting: windows count on event clocks. */
        EVENT_CLOCKS(true, false, true),
        /**
         * Every namespace is filed by event time (an event rate of 200 ids a second for {@code *}): the Redis tier's
         * time buckets, where every copy of a message carries its stamp.
         */
        TIME_BUCKETS(true, true, false),
        /**
         * Every namespace given an event rate on the embedded store: every item must carry its event time, and
         * windows count on the namespaces' event clocks (the rate only sizes the Redis tier's time buckets).
         */
        EVENT_RATES(true, true, true);

        final boolean eventTimes;
        final boolean timeBuckets;
        final boolean eventClocks;

        Events(boolean eventTimes, boolean timeBuckets, boolean eventClocks) {
            this.eventTimes = eventTimes;
            this.timeBuckets = timeBuckets;
            this.eventClocks = eventClocks;
        }
    }

    /**
     * Where items carry event times, moves {@code ns}'s clock to now, as a stream's newer messages do, by claiming a
     * fresh id of this second; elsewhere the wall clock is the clock, and this does nothing.
     */
    private void clockFollows(String ns) {
        if (eventTimes()) {
            assertEquals(List.of("new"), http.claim(ns, items("clock", id())));
        }
    }

    /** Whether every copy of a message carries its message's stamp: event times, not stamped when sent. */
    private boolean sameStamps() {
        return eventTimes() && !eventClocks();
    }

    /**
     * Moves the clock on and the namespace's clock with it until claims made {@code window} ago are over: a window
     * on, where copies are stamped when sent or carry no stamp; two windows on where every copy carries its
     * message's stamp, since a copy stamped a window behind the clock is answered by the claims kept a window more
     * (for readers behind the newest). A caller then waits for the store to drop them.
     */
    private void pastTheEnd(Duration window, String... namespaces) {
        clock.advance(sameStamps() ? window.multipliedBy(2).plusSeconds(1) : window.plusSeconds(1));
        for (String ns : namespaces) {
            clockFollows(ns);
        }
    }

    /** {@code claim}, again every 100 ms for up to 20 s while its answer is not {@code expected}; the last answer. */
    private static List<String> eventually(List<String> expected, java.util.function.Supplier<List<String>> claim)
            throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        List<String> got = claim.get();
        while (!got.equals(expected) && System.nanoTime() < deadline) {
            Thread.sleep(100);
            got = claim.get();
        }
        return got;
    }

    private String id() {
        String id = UUID.randomUUID().toString();
        eventSeconds.put(id, clock.getAsLong() / 1000);
        return id;
    }

    private Item item(String id, String owner) {
        if (!eventTimes()) {
            return new Item(id, owner);
        }
        long made = eventSeconds.computeIfAbsent(id, unused -> clock.getAsLong() / 1000);
        if (!eventClocks()) {
            return new Item(id, owner, made);
        }
        return new Item(
                id, owner, eventSeconds.computeIfAbsent(id + "\u0000" + owner, unused -> clock.getAsLong() / 1000));
    }

    /** {@code ,"ts":<second>} for a raw JSON item of {@code id} when event times are on, else nothing. */
    private String ts(String id) {
        return eventTimes() ? ",\"ts\":" + eventSeconds.get(id) : "";
    }

    private List<Item> items(String owner, String... ids) {
        List<Item> out = new ArrayList<>();
        for (String id : ids) {
            out.add(item(id, owner));
        }
        return out;
    }

    // --- verdicts ---

    @Test
    void firstClaimIsNew_sameOwnerAgainIsRetry() {
        String id = id();
        assertEquals(List.of("new"), http.claim("t", items("3:100", id)));
        assertEquals(List.of("retry"), http.claim("t", items("3:100", id)));
    }

    @Test
    void duplicateWhenAnotherOwnerClaimedFirst() {
        String id = id();
        assertEquals(List.of("new"), http.claim("t", items("3:100", id)));
        assertEquals(List.of("duplicate"), http.claim("t", items("7:555", id)));
        assertEquals(List.of("retry"), http.claim("t", items("3:100", id)), "the first owner keeps its claim");
    }

    @Test
    void repeatsInOneBatchAreDecidedInOrder() {
        String a = id();
        String b = id();
        List<Item> batch = List.of(item(a, "o1"), item(a, "o1"), item(a, "o2"), item(b, "o9"), item(b, "o8"));
        assertEquals(List.of("new", "retry", "duplicate", "new", "duplicate"), http.claim("t", batch));
    }

    @Test
    void manyItemsOneBatch_allNewThenAllRetry() {
        List<Item> batch = IntStream.range(0, MAX_BATCH)
                .mapToObj(i -> item(id(), "p:" + i))
                .toList();
        assertTrue(http.claim("t", batch).stream().allMatch("new"::equals));
        assertTrue(http.claim("t", batch).stream().allMatch("retry"::equals));
    }

    // --- releases ---

    @Test
    void releaseOnlyBySameOwner_thenNextClaimIsNew() {
        String id = id();
        http.claim("t", items("o1", id));
        assertEquals(List.of(false), http.release("t", items("o2", id)), "another owner cannot release");
        assertEquals(List.of("duplicate"), http.claim("t", items("o2", id)));
        assertEquals(List.of(true), http.release("t", items("o1", id)));
        assertEquals(List.of(false), http.release("t", items("o1", id)), "nothing left to release");
        assertEquals(List.of("new"), http.claim("t", items("o2", id)));
    }

    @Test
    void releaseOfUnclaimedIdIsFalse_andClaimsNothing() {
        String id = id();
        assertEquals(List.of(false), http.release("t", items("o1", id)));
        assertEquals(List.of("new"), http.claim("t", items("o2", id)));
    }

    @Test
    void releasesAnswerJson() {
        String held = id();
        http.claim("t", items("o1", held));
        HttpResponse<byte[]> r =
                AgentHttp.ok(http.post("/v1/releases", JSON, BatchEncoder.json("t", items("o1", held, id()))));
        assertEquals("{\"released\":[true,false]}", text(r));
        assertEquals(JSON, r.headers().firstValue("Content-Type").orElse(""));
    }

    // --- namespaces and windows ---

    @Test
    void namespacesAreIsolated() {
        String id = id();
        assertEquals(List.of("new"), http.claim("clicks", items("o1", id)));
        assertEquals(List.of("new"), http.claim("views", items("o2", id)));
        assertEquals(List.of("duplicate"), http.claim("clicks", items("o2", id)));
    }

    @Test
    void defaultNamespaceIsShared_jsonWithoutNs_binaryWithEmptyNs_andNamedDefault() {
        String id = id();
        byte[] json = ("{\"items\":[{\"id\":\"" + id + "\",\"owner\":\"o1\"" + ts(id) + "}]}")
                .getBytes(StandardCharsets.UTF_8);
        assertEquals("{\"verdicts\":[\"new\"]}", text(AgentHttp.ok(http.post("/v1/claims", JSON, json))));
        assertEquals(List.of("duplicate"), http.claim("", items("o2", id)));
        assertEquals(List.of("retry"), http.claim("default", items("o1", id)));
    }

    @Test
    void claimExpiresAfterItsWindow() throws InterruptedException {
        String id = id();
        assertEquals(List.of("new"), http.claim("t", items("o1", id)));
        clock.advance(WINDOW.minusSeconds(1));
        clockFollows("t");
        assertEquals(List.of("duplicate"), http.claim("t", items("o2", id)), "still inside the window");
        if (sameStamps()) {
            clock.advance(Duration.ofSeconds(2));
            clockFollows("t");
            assertEquals(
                    List.of("duplicate"),
                    http.claim("t", items("o3", id)),
                    "a copy a window behind the clock: late, answered by the claims kept a window more");
            clock.advance(WINDOW.minusSeconds(2));
        }
        pastTheEnd(Duration.ofSeconds(1), "t");
        assertEquals(
                List.of("new"),
                eventually(List.of("new"), () -> http.claim("t", items("o4", id))),
                "a copy sent after the window is over");
    }

    @Test
    void namespaceWindowOverridesTheDefault() throws InterruptedException {
        String shortId = id();
        String longId = id();
        http.claim(SHORT_NS, items("o1", shortId));
        http.claim("t", items("o1", longId));
        pastTheEnd(SHORT_WINDOW, SHORT_NS, "t");
        assertEquals(List.of("new"), eventually(List.of("new"), () -> http.claim(SHORT_NS, items("o2", shortId))));
        assertEquals(List.of("duplicate"), http.claim("t", items("o2", longId)));
    }

    // --- windows on event clocks ---

    @Test
    void eventClock_aJobThatFallsBehindKeepsItsClaims() {
        assumeTrue(eventClocks(), "windows count on event clocks");
        String id = UUID.randomUUID().toString();
        long t = clock.getAsLong() / 1000;
        assertEquals(List.of("new"), http.claim(LAG_NS, List.of(new Item(id, "o1", t))));
        clock.advance(Duration.ofSeconds(6));
        assertEquals(
                List.of("duplicate"),
                http.claim(LAG_NS, List.of(new Item(id, "o2", t + 1))),
                "6 s of the wall later, but 1 s of the stream's: inside the 4-second window");
        clock.advance(LAG_WINDOW.multipliedBy(3));
        assertEquals(List.of("duplicate"), http.claim(LAG_NS, List.of(new Item(id, "o3", t + 2))), "a long stall");
        assertEquals(List.of(true), http.release(LAG_NS, List.of(new Item(id, "o1", t))), "held, so released");
        assertEquals(List.of("new"), http.claim(LAG_NS, List.of(new Item(id, "o3", t + 2))));
    }

    @Test
    void eventClock_movesWithTheEventsClaimed_andALateItemIsCounted() {
        assumeTrue(eventClocks(), "windows count on event clocks");
        String id = UUID.randomUUID().toString();
        long t = clock.getAsLong() / 1000;
        long lateBefore = lateItems(LAG_NS);
        assertEquals(List.of("new"), http.claim(LAG_NS, List.of(new Item(id, "o1", t))));
        clock.advance(Duration.ofSeconds(6));
        assertEquals(
                List.of("duplicate"),
                http.claim(LAG_NS, List.of(new Item(id, "o2", t + 3))),
                "the clock stands at " + t + ": the first claim ends at " + (t + 4));
        String newer = UUID.randomUUID().toString();
        assertEquals(List.of("new"), http.claim(LAG_NS, List.of(new Item(newer, "o1", t + 5))));
        assertEquals(t + 5, eventClock(LAG_NS), "the clock moves to the newest event second claimed");
        assertEquals(
                List.of("duplicate"),
                http.claim(LAG_NS, List.of(new Item(id, "o2", t))),
                "a window behind the clock: late, yet its claim is kept until the clock is a window past its end");
        assertEquals(lateBefore + 1, lateItems(LAG_NS));
        String metrics = text(AgentHttp.ok(http.get("/metrics")));
        assertTrue(metrics.contains("dedup_claims_late_total "), metrics);
        clock.advance(Duration.ofSeconds(4));
        assertEquals(List.of("new"), http.claim(LAG_NS, List.of(new Item(id(), "o1", t + 9))));
        assertEquals(
                List.of("new"),
                http.claim(LAG_NS, List.of(new Item(id, "o2", t + 1))),
                "two windows behind the clock: late, and the claim of " + t + " has ended for good");
        assertEquals(lateBefore + 2, lateItems(LAG_NS));
        assertEquals(
                List.of("duplicate"),
                http.claim(LAG_NS, List.of(new Item(newer, "o2", t + 5))),
                "the newer claim is kept");
        assertEquals(
                List.of("duplicate", "retry"),
                http.claim(LAG_NS, List.of(new Item(id, "o3", t + 1), new Item(id, "o2", t + 1))),
                "a late item is claimed for a window from the clock: its own copies that follow it are caught");
    }

    @Test
    void eventClock_twoCopiesAWindowApartInOneBatchAreTwoMessages_andTheCopiesOfEachAreCaught() {
        assumeTrue(eventClocks(), "windows count on event clocks");
        String ns = "apart-" + UUID.randomUUID().toString().substring(0, 8); // a clock of its own; the 24 h window
        String id = UUID.randomUUID().toString();
        long t = clock.getAsLong() / 1000;
        long dayBefore = t - WINDOW.toSeconds();
        assertEquals(
                List.of("new", "new", "duplicate", "duplicate"),
                http.claim(
                        ns,
                        List.of(
                                new Item(id, "p0:1", dayBefore),
                                new Item(id, "p1:1", t),
                                new Item(id, "p2:1", dayBefore + 1),
                                new Item(id, "p3:1", t + 1))),
                "a window apart, one call: two messages, each with a copy");
    }

    @Test
    void eventClock_aReaderBehindTheNewestFindsTheClaimsOfItsTime() {
        assumeTrue(eventClocks(), "windows count on event clocks");
        String id = UUID.randomUUID().toString();
        long t = clock.getAsLong() / 1000;
        // One partition's reader claims the message sent at t and reads on to t + 7; another, behind it, reads the
        // copy its producer sent again at t + 2.
        assertEquals(List.of("new"), http.claim(LAG_NS, List.of(new Item(id, "p0:1", t))));
        clock.advance(Duration.ofSeconds(8));
        assertEquals(List.of("new"), http.claim(LAG_NS, List.of(new Item(id(), "p0:2", t + 7))));
        assertEquals(t + 7, eventClock(LAG_NS));
        assertEquals(
                List.of("duplicate"),
                http.claim(LAG_NS, List.of(new Item(id, "p1:1", t + 2))),
                "the copy lies within the window of the claim, though the clock passed the claim's end");
        assertEquals(
                List.of("new"),
                http.claim(LAG_NS, List.of(new Item(id, "p1:2", t + 4))),
                "a window after the claim: another message, wherever the clock stands");
    }

    @Test
    void eventClock_neverRunsAheadOfTheWall() {
        assumeTrue(eventClocks(), "windows count on event clocks");
        String id = UUID.randomUUID().toString();
        long t = clock.getAsLong() / 1000;
        http.claim(LAG_NS, List.of(new Item(id, "o1", t)));
        http.claim(LAG_NS, List.of(new Item(UUID.randomUUID().toString(), "o1", t + 86_400)));
        assertTrue(eventClock(LAG_NS) <= t, "a producer's clock a day ahead does not move it past the wall");
        assertEquals(List.of("duplicate"), http.claim(LAG_NS, List.of(new Item(id, "o2", t))));
    }

    /** The namespace's event clock in {@code /v1/stats}. */
    private long eventClock(String ns) {
        return eventTimeStats(ns).getLong("clock");
    }

    /** The namespace's late items in {@code /v1/stats}, 0 before any. */
    private long lateItems(String ns) {
        JsonObject stats = eventTimeStats(ns);
        return stats == null ? 0 : stats.getLong("late");
    }

    private JsonObject eventTimeStats(String ns) {
        JsonObject stats = new JsonObject(text(AgentHttp.ok(http.get("/v1/stats"))));
        return stats.getJsonObject("event_time").getJsonObject(ns);
    }

    // --- sliding windows ---

    @Test
    void slidingWindow_everyRepeatRenewsTheClaim_untilTheCopiesStop() {
        assumeFalse(timeBuckets(), "claims filed in time buckets have fixed windows (sliding is refused there)");
        String id = id();
        assertEquals(List.of("new"), http.claim(SLIDING_NS, items("o1", id)));
        clock.advance(Duration.ofSeconds(8));
        assertEquals(List.of("duplicate"), http.claim(SLIDING_NS, items("o2", id)), "renews: ends at 18 s");
        clock.advance(Duration.ofSeconds(8));
        assertEquals(List.of("retry"), http.claim(SLIDING_NS, items("o1", id)), "past the first window; renews");
        clock.advance(Duration.ofSeconds(8));
        assertEquals(List.of("duplicate"), http.claim(SLIDING_NS, items("o3", id)), "24 s: still remembered");
        clock.advance(SLIDING_WINDOW.plusSeconds(1));
        assertEquals(List.of("new"), http.claim(SLIDING_NS, items("o3", id)), "a whole window without copies");
    }

    @Test
    void slidingWindow_repeatsInOneBatchRenewToo_andAFixedNamespaceIsNotRenewed() {
        assumeFalse(timeBuckets(), "claims filed in time buckets have fixed windows (sliding is refused there)");
        String sliding = id();
        String fixed = id();
        http.claim(SLIDING_NS, items("o1", sliding));
        http.claim(SHORT_NS, items("o1", fixed));
        clock.advance(Duration.ofSeconds(9));
        assertEquals(
                List.of("retry", "duplicate"),
                http.claim(SLIDING_NS, List.of(item(sliding, "o1"), item(sliding, "o2"))));
        assertEquals(List.of("duplicate"), http.claim(SHORT_NS, items("o2", fixed)));
        clock.advance(Duration.ofSeconds(9));
        clockFollows(SHORT_NS);
        assertEquals(List.of("duplicate"), http.claim(SLIDING_NS, items("o2", sliding)), "renewed at 9 s");
        assertEquals(List.of("new"), http.claim(SHORT_NS, items("o3", fixed)), "a fixed window is not renewed");
    }

    @Test
    void slidingWindow_aReleasedClaimIsNewAgain() {
        assumeFalse(timeBuckets(), "claims filed in time buckets have fixed windows (sliding is refused there)");
        String id = id();
        http.claim(SLIDING_NS, items("o1", id));
        clock.advance(Duration.ofSeconds(5));
        assertEquals(List.of("duplicate"), http.claim(SLIDING_NS, items("o2", id)));
        assertEquals(List.of(true), http.release(SLIDING_NS, items("o1", id)));
        assertEquals(List.of("new"), http.claim(SLIDING_NS, items("o2", id)));
    }

    // --- formats ---

    @Test
    void jsonAndBinaryShareClaims() {
        String id = id();
        assertEquals("{\"verdicts\":[\"new\"]}", http.claimJson("t", items("o1", id)));
        assertEquals(List.of("duplicate"), http.claim("t", items("o2", id)));
        assertEquals("{\"verdicts\":[\"retry\"]}", http.claimJson("t", items("o1", id)));
    }

    @Test
    void binaryAnswerIsOneBytePerItem() {
        HttpResponse<byte[]> r =
                AgentHttp.ok(http.post("/v1/claims", BINARY, BatchEncoder.binary("t", items("o", id(), id(), id()))));
        assertEquals(
                "application/x-dedup-verdicts",
                r.headers().firstValue("Content-Type").orElse(""));
        assertEquals(3, r.body().length);
    }

    @Test
    void contentTypeParametersAreAccepted() {
        HttpResponse<byte[]> r =
                http.post("/v1/claims", "application/json; charset=utf-8", BatchEncoder.json("t", items("o", id())));
        assertEquals(200, r.statusCode(), text(r));
    }

    @Test
    void emptyBatchAnswersEmptyVerdicts() {
        HttpResponse<byte[]> r = AgentHttp.ok(http.post("/v1/claims", JSON, "{\"items\":[]}".getBytes()));
        assertEquals("{\"verdicts\":[]}", text(r));
    }

    // --- rejected requests change nothing ---

    /** Sends a bad request, checks its status, code and message, then checks that {@code probe} is still unclaimed. */
    private void rejected(
            int status,
            String code,
            String messagePart,
            String contentType,
            byte[] body,
            String probeNs,
            String... probeIds) {
        HttpResponse<byte[]> r = http.post("/v1/claims", contentType, body);
        String text = text(r);
        assertEquals(status, r.statusCode(), text);
        assertTrue(text.contains("\"error\":\"" + code + "\""), text);
        assertTrue(text.contains(messagePart), "message should contain '" + messagePart + "': " + text);
        assertEquals("application/json", r.headers().firstValue("Content-Type").orElse(""));
        for (String probe : probeIds) {
            assertEquals(
                    List.of("new"),
                    http.claim(probeNs, items("other-owner", probe)),
                    "a rejected request claimed " + probe);
        }
    }

    @Test
    void emptyIdIs400_andEarlierItemsAreNotClaimed() {
        String first = id();
        byte[] body = ("{\"ns\":\"t\",\"items\":[{\"id\":\"" + first
                        + "\",\"owner\":\"o\"},{\"id\":\"\",\"owner\":\"o\"}]}")
                .getBytes(StandardCharsets.UTF_8);
        rejected(400, "bad_request", "items[1].id: empty", JSON, body, "t", first);
    }

    @Test
    void missingOwnerIs400() {
        String first = id();
        byte[] body = ("{\"ns\":\"t\",\"items\":[{\"id\":\"" + first + "\",\"owner\":\"o\"},{\"id\":\"x\"}]}")
                .getBytes(StandardCharsets.UTF_8);
        rejected(400, "bad_request", "items[1].owner: missing", JSON, body, "t", first);
    }

    @Test
    void idTooLongIs400() {
        for (String type : List.of(JSON, BINARY)) {
            String first = id();
            List<Item> batch = List.of(item(first, "o"), item("x".repeat(513), "o"));
            byte[] body = type.equals(JSON) ? BatchEncoder.json("t", batch) : BatchEncoder.binary("t", batch);
            rejected(400, "bad_request", "items[1].id", type, body, "t", first);
        }
    }

    @Test
    void ownerTooLongIs400() {
        String first = id();
        List<Item> batch = List.of(item(first, "o"), item(id(), "o".repeat(129)));
        rejected(400, "bad_request", "items[1].owner", BINARY, BatchEncoder.binary("t", batch), "t", first);
    }

    @Test
    void badNamespaceIs400() {
        String first = id();
        rejected(400, "bad_request", "ns:", JSON, BatchEncoder.json("no spaces", items("o", first)), "t", first);
    }

    @Test
    void malformedJsonIs400() {
        rejected(400, "bad_request", "malformed JSON", JSON, "{\"items\":[{\"id\":".getBytes(), "t");
    }

    @Test
    void truncatedBinaryIs400_andEarlierItemsAreNotClaimed() {
        String first = id();
        byte[] whole = BatchEncoder.binary("t", List.of(item(first, "o"), item(id(), "owner")));
        byte[] cut = java.util.Arrays.copyOf(whole, whole.length - 2 - (eventTimes() ? 4 : 0));
        rejected(400, "bad_request", "items[1].owner: truncated", BINARY, cut, "t", first);
        if (eventTimes()) {
            String other = id();
            byte[] cutSecond = java.util.Arrays.copyOf(
                    BatchEncoder.binary("t", List.of(item(other, "o"), item(id(), "owner"))), whole.length - 1);
            rejected(400, "bad_request", "items[1].ts: truncated", BINARY, cutSecond, "t", other);
        }
    }

    @Test
    void moreThanMaxBatchItemsIs413() {
        List<Item> batch =
                IntStream.range(0, MAX_BATCH + 1).mapToObj(i -> item(id(), "o")).toList();
        rejected(
                413,
                "too_large",
                "max-batch",
                BINARY,
                BatchEncoder.binary("t", batch),
                "t",
                batch.get(0).id());
        rejected(
                413,
                "too_large",
                "max-batch",
                JSON,
                BatchEncoder.json("t", batch),
                "t",
                batch.get(1).id());
    }

    @Test
    void bodyOverMaxBodyIs413() {
        String first = id();
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.writeBytes(BatchEncoder.binary("t", items("o", first)));
        out.writeBytes(new byte[(int) MAX_BODY]);
        rejected(413, "too_large", "max-body", BINARY, out.toByteArray(), "t", first);
    }

    @Test
    void otherContentTypeIs415() {
        String first = id();
        rejected(
                415,
                "unsupported_media_type",
                "text/plain",
                "text/plain",
                BatchEncoder.json("t", items("o", first)),
                "t",
                first);
    }

    @Test
    void missingContentTypeIs415() {
        String first = id();
        rejected(415, "unsupported_media_type", "missing", null, BatchEncoder.json("t", items("o", first)), "t", first);
    }

    @Test
    void badReleaseIs400_andReleasesNothing() {
        String id = id();
        http.claim("t", items("o1", id));
        byte[] body = ("{\"ns\":\"t\",\"items\":[{\"id\":\"" + id + "\",\"owner\":\"o1\"},{\"id\":5,\"owner\":\"o\"}]}")
                .getBytes(StandardCharsets.UTF_8);
        HttpResponse<byte[]> r = http.post("/v1/releases", JSON, body);
        assertEquals(400, r.statusCode());
        assertTrue(text(r).contains("items[1].id: must be a string"), text(r));
        assertEquals(List.of("retry"), http.claim("t", items("o1", id)), "the claim is still held");
    }

    // --- operations ---

    @Test
    void unknownPathIs404_wrongMethodIs405_asJson() {
        HttpResponse<byte[]> r = http.get("/v1/nothing");
        assertEquals(404, r.statusCode());
        assertTrue(text(r).contains("\"error\":\"not_found\""), text(r));
        r = http.get("/v1/claims");
        assertEquals(405, r.statusCode());
        assertTrue(text(r).contains("\"error\":\"method_not_allowed\""), text(r));
    }

    @Test
    void healthAnswers() {
        assertEquals(200, http.get("/health/live").statusCode());
        HttpResponse<byte[]> ready = http.get("/health/ready");
        assertEquals(200, ready.statusCode(), text(ready));
    }

    @Test
    void metricsCountVerdictsInPrometheusFormat() {
        String id = id();
        http.claim("t", items("o1", id));
        http.claim("t", items("o2", id));
        String metrics = text(AgentHttp.ok(http.get("/metrics")));
        assertTrue(metrics.contains("dedup_claims_total{verdict=\"new\"}"), metrics);
        assertTrue(metrics.contains("dedup_claims_total{verdict=\"duplicate\"}"), metrics);
        assertTrue(metrics.contains("dedup_http_requests_seconds"), metrics);
        assertTrue(
                metrics.contains("dedup_build_info{java=\"" + Runtime.version() + "\",version=\""
                        + ProjectVersion.expected() + "\"} 1"),
                metrics);
    }

    @Test
    void statsNameTheStoreAndCountClaims() {
        http.claim("t", items("o1", id()));
        String stats = text(AgentHttp.ok(http.get("/v1/stats")));
        assertTrue(stats.contains("\"kind\""), stats);
        assertTrue(stats.contains("\"claims\""), stats);
        assertTrue(stats.contains("\"new\""), stats);
        assertTrue(stats.contains("\"version\" : \"" + ProjectVersion.expected() + "\""), stats);
    }
}
