package dev.dedup.agent.contract;

import static dev.dedup.agent.testing.AgentHttp.JSON;
import static dev.dedup.agent.testing.AgentHttp.text;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dedup.agent.config.WindowOptions;
import dev.dedup.agent.testing.AgentHttp;
import dev.dedup.wire.RangeEncoder;
import dev.dedup.wire.SequenceRange;
import java.math.BigInteger;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;

/**
 * The contract of the ordered-stream endpoints ({@code POST /v1/ranges/check}, {@code /v1/ranges/commit};
 * docs/api.md), written once and run against every store: a subclass names its stores.
 * Each test uses a fresh stream, so tests share one agent.
 */
public abstract class RangeContractSuite extends AgentSuite {

    /** A Kinesis sequence number: 56 digits. */
    private static final String KINESIS = "49590338271490256608559692538361571095921575989136588898";

    @Override
    protected WindowOptions windows() {
        return new WindowOptions(WINDOW, Map.of(SHORT_NS, SHORT_WINDOW));
    }

    private static String stream() {
        return "shardId-" + UUID.randomUUID();
    }

    private static SequenceRange r(long from, long to) {
        return SequenceRange.of(from, to);
    }

    private static SequenceRange r(String from, String to) {
        return SequenceRange.of(from, to);
    }

    private HttpResponse<byte[]> post(String path, String ns, String stream, List<SequenceRange> ranges) {
        return http.post(path, JSON, RangeEncoder.request(ns, stream, ranges));
    }

    private void commit(String ns, String stream, SequenceRange... ranges) {
        assertEquals(
                new String(RangeEncoder.committed(ranges.length), StandardCharsets.UTF_8),
                text(AgentHttp.ok(post("/v1/ranges/commit", ns, stream, List.of(ranges)))));
    }

    private void commit(String stream, SequenceRange... ranges) {
        commit("t", stream, ranges);
    }

    /** Asserts what {@code /v1/ranges/check} answers for {@code asked}: per range, its committed parts. */
    private void assertDone(String ns, String stream, List<SequenceRange> asked, List<List<SequenceRange>> done) {
        assertEquals(
                new String(RangeEncoder.done(done), StandardCharsets.UTF_8),
                text(AgentHttp.ok(post("/v1/ranges/check", ns, stream, asked))),
                "check " + asked);
    }

    private void assertDone(String stream, SequenceRange asked, SequenceRange... parts) {
        assertDone("t", stream, List.of(asked), List.of(List.of(parts)));
    }

    // --- checks ---

    @Test
    void nothingIsDoneInAStreamNobodyCommitted() {
        assertDone(stream(), r(0, 1000));
    }

    @Test
    void aCheckAnswersTheCommittedPartsOfEachAskedRange_inOrder() {
        String s = stream();
        commit(s, r(100, 199));
        assertDone(s, r(100, 199), r(100, 199));
        assertDone(s, r(50, 150), r(100, 150));
        assertDone(s, r(150, 250), r(150, 199));
        assertDone(s, r(120, 130), r(120, 130));
        assertDone(s, r(0, 99));
        assertDone(s, r(200, 300));
        assertDone(
                "t",
                s,
                List.of(r(0, 120), r(300, 400), r(199, 199)),
                List.of(List.of(r(100, 120)), List.of(), List.of(r(199, 199))));
    }

    @Test
    void aRangeSpanningGapsGetsEveryCommittedPart() {
        String s = stream();
        commit(s, r(0, 9), r(11, 20), r(40, 49));
        assertDone(s, r(5, 45), r(5, 9), r(11, 20), r(40, 45));
    }

    // --- commits ---

    @Test
    void overlapsOfEveryShapeMerge() {
        String s = stream();
        commit(s, r(10, 20), r(30, 40));
        assertDone(s, r(0, 100), r(10, 20), r(30, 40));
        commit(s, r(15, 35)); // bridges the two
        assertDone(s, r(0, 100), r(10, 40));
        commit(s, r(5, 45)); // covers
        assertDone(s, r(0, 100), r(5, 45));
        commit(s, r(20, 25)); // inside
        assertDone(s, r(0, 100), r(5, 45));
        commit(s, r(45, 50)); // overlaps the end
        assertDone(s, r(0, 100), r(5, 50));
        commit(s, r(1, 5)); // overlaps the start
        assertDone(s, r(0, 100), r(1, 50));
        commit(s, r(70, 80), r(60, 90)); // in one request, in order
        assertDone(s, r(0, 100), r(1, 50), r(60, 90));
    }

    @Test
    void adjacentCommitsMerge_soAStreamCommittedInOrderIsOneRange() {
        String s = stream();
        for (int batch = 0; batch < 50; batch++) {
            commit(s, r(batch * 100L, batch * 100L + 99));
        }
        assertDone(s, r(0, 1_000_000), r(0, 4999));
        commit(s, r(5001, 5010));
        commit(s, r(5011, 5020)); // touches the one before
        assertDone(s, r(0, 1_000_000), r(0, 4999), r(5001, 5020));
        commit(s, r(5000, 5000)); // fills the hole
        assertDone(s, r(0, 1_000_000), r(0, 5020));
    }

    @Test
    void commitsAreIdempotent() {
        String s = stream();
        commit(s, r(7, 9));
        commit(s, r(7, 9));
        commit(s, r(7, 9), r(7, 9));
        assertDone(s, r(0, 100), r(7, 9));
    }

    @Test
    void hugeSequenceNumbers_orderedByValue_andMergedAcrossAChangeOfLength() {
        String s = stream();
        BigInteger k = new BigInteger(KINESIS);
        commit(s, r(KINESIS, k.add(BigInteger.valueOf(999)).toString()));
        assertDone(
                s,
                r(k.subtract(BigInteger.TEN).toString(), k.add(BigInteger.TEN).toString()),
                r(KINESIS, k.add(BigInteger.TEN).toString()));
        String nines = "9".repeat(56);
        String tenPow = "1" + "0".repeat(56);
        commit(s, r("1" + "0".repeat(55), nines));
        commit(s, r(tenPow, tenPow)); // 10^56 - 1 and 10^56 touch: one range
        assertDone(s, r("1" + "0".repeat(55), "2" + "0".repeat(56)), r("1" + "0".repeat(55), tenPow));
        String largest = "9".repeat(129);
        commit(s, r("1" + "0".repeat(128), largest));
        assertDone(s, r(largest, largest), r(largest, largest));
        assertDone(s, r("9", "99"));
        commit(s, r(0, 0));
        commit(s, r(999, 1000)); // three digits and four
        assertDone(s, r(0, 2000), r(0, 0), r(999, 1000));
    }

    @Test
    void streamsAndNamespacesAreApart() {
        String s = stream();
        commit("a", s, r(0, 99));
        assertDone("b", s, List.of(r(0, 99)), List.of(List.of()));
        assertDone("a", stream(), List.of(r(0, 99)), List.of(List.of()));
        assertDone("a", s, List.of(r(0, 99)), List.of(List.of(r(0, 99))));
    }

    @Test
    void aCommittedRangeIsRememberedForItsNamespacesWindowAfterItsLastCommit() {
        String s = stream();
        String kept = stream();
        commit(SHORT_NS, s, r(0, 9));
        commit(SHORT_NS, kept, r(0, 9));
        clock.advance(Duration.ofSeconds(6));
        commit(SHORT_NS, kept, r(10, 19)); // merges: the whole range's last commit is now
        clock.advance(Duration.ofSeconds(6));
        assertDone(SHORT_NS, s, List.of(r(0, 9)), List.of(List.of()));
        assertDone(SHORT_NS, kept, List.of(r(0, 100)), List.of(List.of(r(0, 19))));
        clock.advance(SHORT_WINDOW);
        assertDone(SHORT_NS, kept, List.of(r(0, 100)), List.of(List.of()));
        commit(SHORT_NS, kept, r(15, 30)); // an ended range does not come back
        assertDone(SHORT_NS, kept, List.of(r(0, 100)), List.of(List.of(r(15, 30))));
    }

    @Test
    void concurrentCommitsOfOneStream_endAsOneRange() throws Exception {
        String s = stream();
        List<Integer> batches = new ArrayList<>();
        for (int i = 0; i < 400; i++) {
            batches.add(i);
        }
        Collections.shuffle(batches, new java.util.Random(3));
        ExecutorService pool = Executors.newFixedThreadPool(4);
        try {
            List<Future<?>> done = new ArrayList<>();
            for (int worker = 0; worker < 4; worker++) {
                List<Integer> mine = batches.subList(worker * 100, worker * 100 + 100);
                done.add(pool.submit(() -> mine.forEach(b -> commit(s, r(b * 10L, b * 10L + 9)))));
            }
            for (Future<?> f : done) {
                f.get();
            }
        } finally {
            pool.shutdownNow();
        }
        assertDone(s, r(0, 10_000), r(0, 3999));
    }

    // --- bad input: a 4xx naming the place, and nothing committed ---

    private void assertRejected(int status, String message, String body) {
        String s = stream();
        String bodyForStream = body.replace("STREAM", s);
        HttpResponse<byte[]> response =
                http.post("/v1/ranges/commit", JSON, bodyForStream.getBytes(StandardCharsets.UTF_8));
        assertEquals(status, response.statusCode(), text(response));
        assertTrue(text(response).contains("\"message\":\"" + message), text(response));
        assertDone(s, r(0, 1_000_000));
    }

    private static String body(String ranges) {
        return "{\"ns\":\"t\",\"stream\":\"STREAM\",\"ranges\":[" + ranges + "]}";
    }

    @Test
    void badRangesAre400sNamingThePlace_andCommitNothing() {
        String ok = "{\"from\":\"0\",\"to\":\"100\"}";
        assertRejected(400, "ranges[1].from: leading zero in '007'", body(ok + ",{\"from\":\"007\",\"to\":\"9\"}"));
        assertRejected(400, "ranges[1]: from 10 is after to 9", body(ok + ",{\"from\":\"10\",\"to\":\"9\"}"));
        assertRejected(
                400,
                "ranges[1].to: 130 digits; at most 129",
                body(ok + ",{\"from\":\"1\",\"to\":\"" + "1".repeat(130) + "\"}"));
        assertRejected(
                400,
                "ranges[1].from: '-5' is not an unsigned decimal number",
                body(ok + ",{\"from\":\"-5\",\"to\":\"9\"}"));
        assertRejected(
                400,
                "ranges[1].to: 'ten' is not an unsigned decimal number",
                body(ok + ",{\"from\":\"1\",\"to\":\"ten\"}"));
        assertRejected(
                400,
                "ranges[1].from: must be a string of decimal digits, got a number",
                body(ok + ",{\"from\":1,\"to\":\"9\"}"));
        assertRejected(400, "ranges[1].to: missing", body(ok + ",{\"from\":\"1\"}"));
    }

    @Test
    void badStreamsAndBodiesAre4xx_andCommitNothing() {
        HttpResponse<byte[]> empty = http.post(
                "/v1/ranges/commit",
                JSON,
                "{\"stream\":\"\",\"ranges\":[{\"from\":\"0\",\"to\":\"1\"}]}".getBytes(StandardCharsets.UTF_8));
        assertEquals(400, empty.statusCode());
        assertEquals("{\"error\":\"bad_request\",\"message\":\"stream: empty\"}", text(empty));
        HttpResponse<byte[]> noStream =
                http.post("/v1/ranges/check", JSON, "{\"ranges\":[]}".getBytes(StandardCharsets.UTF_8));
        assertEquals("{\"error\":\"bad_request\",\"message\":\"stream: missing\"}", text(noStream));
        StringBuilder many = new StringBuilder();
        for (int i = 0; i <= MAX_BATCH; i++) {
            many.append(i > 0 ? "," : "")
                    .append("{\"from\":\"")
                    .append(i)
                    .append("\",\"to\":\"")
                    .append(i)
                    .append("\"}");
        }
        assertRejected(413, "ranges: more than max-batch (" + MAX_BATCH + ") ranges", body(many.toString()));
        String s = stream();
        HttpResponse<byte[]> binary =
                http.post("/v1/ranges/commit", AgentHttp.BINARY, RangeEncoder.request("t", s, List.of(r(0, 9))));
        assertEquals(415, binary.statusCode());
        assertDone(s, r(0, 9));
        assertEquals(
                400,
                http.post("/v1/ranges/check", JSON, "{\"stream\":\"x\",\"ranges\":[".getBytes(StandardCharsets.UTF_8))
                        .statusCode());
    }
}
