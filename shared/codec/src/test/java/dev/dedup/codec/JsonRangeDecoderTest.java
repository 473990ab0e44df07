package dev.dedup.codec;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.dedup.wire.BatchRejectedException;
import dev.dedup.wire.RangeEncoder;
import dev.dedup.wire.SequenceRange;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class JsonRangeDecoderTest {

    private static final String KINESIS = "49590338271490256608559692538361571095921575989136588898";

    private static RangeRequest decode(String body) {
        return JsonRangeDecoder.decode(body.getBytes(StandardCharsets.UTF_8), 10);
    }

    private static String rejected(String body) {
        return assertThrows(BatchRejectedException.class, () -> decode(body)).getMessage();
    }

    private static String range(String from, String to) {
        return "{\"ns\":\"orders\",\"stream\":\"s\",\"ranges\":[{\"from\":\"" + from + "\",\"to\":\"" + to + "\"}]}";
    }

    @Test
    void aRequestIsDecodedInOrder_withHugeSequenceNumbersAndUnknownFieldsSkipped() {
        String nines = "9".repeat(129);
        RangeRequest r = decode("{\"stream\":\"shardId-000000000003\",\"x\":[1,{}],\"ranges\":[{\"from\":\"" + KINESIS
                + "\",\"to\":\"" + nines + "\",\"y\":null},{\"to\":\"0\",\"from\":\"0\"}]}");
        assertEquals("default", r.namespace());
        assertEquals("shardId-000000000003", r.stream());
        assertEquals(List.of(SequenceRange.of(KINESIS, nines), SequenceRange.of(0, 0)), r.ranges());
    }

    @Test
    void theEncoderWritesWhatTheDecoderReads() {
        List<SequenceRange> ranges = List.of(SequenceRange.of(5, 9), SequenceRange.of(KINESIS, KINESIS + "1"));
        RangeRequest r = JsonRangeDecoder.decode(RangeEncoder.request("ns1", "strömmen \"1\"", ranges), 10);
        assertEquals(new RangeRequest("ns1", "strömmen \"1\"", ranges), r);
    }

    @Test
    void badSequenceNumbersAre400sNamingTheRangeAndTheEnd() {
        assertEquals("ranges[0].from: leading zero in '007'", rejected(range("007", "9")));
        assertEquals("ranges[0]: from 10 is after to 9", rejected(range("10", "9")));
        assertEquals("ranges[0].to: 130 digits; at most 129", rejected(range("1", "1".repeat(130))));
        assertEquals(
                "ranges[0].from: '-1' is not an unsigned decimal number (character 1)", rejected(range("-1", "2")));
        assertEquals(
                "ranges[0].to: '1e9' is not an unsigned decimal number (character 2)", rejected(range("1", "1e9")));
        assertEquals("ranges[0].from: empty", rejected(range("", "2")));
        assertEquals(
                "ranges[0].from: must be a string of decimal digits, got a number",
                rejected("{\"stream\":\"s\",\"ranges\":[{\"from\":1,\"to\":\"2\"}]}"));
        assertEquals("ranges[0].to: missing", rejected("{\"stream\":\"s\",\"ranges\":[{\"from\":\"1\"}]}"));
    }

    @Test
    void badStreamsAndShapesAre400s_tooManyRangesA413() {
        assertEquals("stream: empty", rejected("{\"stream\":\"\",\"ranges\":[]}"));
        assertEquals("stream: missing", rejected("{\"ranges\":[]}"));
        assertEquals(
                "stream: 257 bytes; at most 256 UTF-8 bytes",
                rejected("{\"stream\":\"" + "s".repeat(257) + "\",\"ranges\":[]}"));
        assertEquals("ranges: missing", rejected("{\"stream\":\"s\"}"));
        assertEquals("ranges: must be an array, got an object", rejected("{\"stream\":\"s\",\"ranges\":{}}"));
        assertEquals(
                "ns: 'a b' is not a namespace (1 to 64 of A-Z a-z 0-9 . _ -)",
                rejected("{\"ns\":\"a b\",\"stream\":\"s\",\"ranges\":[]}"));
        assertEquals("body: unexpected data after the closing }", rejected("{\"stream\":\"s\",\"ranges\":[]} {}"));
        StringBuilder eleven = new StringBuilder("{\"stream\":\"s\",\"ranges\":[");
        for (int i = 0; i < 11; i++) {
            eleven.append(i > 0 ? "," : "").append("{\"from\":\"1\",\"to\":\"2\"}");
        }
        BatchRejectedException tooMany = assertThrows(
                BatchRejectedException.class, () -> decode(eleven.append("]}").toString()));
        assertEquals(BatchRejectedException.Reason.TOO_LARGE, tooMany.reason());
        assertEquals("ranges: more than max-batch (10) ranges", tooMany.getMessage());
    }

    /** Mutated bodies: every one decodes or is rejected with a message; nothing else escapes. */
    @Test
    void fuzz_everyMutatedBodyDecodesOrIsRejected() {
        byte[] valid = RangeEncoder.request(
                "ns", "stream-1", List.of(SequenceRange.of(KINESIS, KINESIS + "9"), SequenceRange.of(0, 100)));
        SplittableRandom random = new SplittableRandom(Long.getLong("fuzz.seed", 7));
        int iterations = Integer.getInteger("fuzz.iterations", 100_000);
        int decoded = 0;
        for (int n = 0; n < iterations; n++) {
            byte[] body = valid.clone();
            int edits = 1 + random.nextInt(4);
            for (int e = 0; e < edits; e++) {
                int at = random.nextInt(body.length);
                switch (random.nextInt(3)) {
                    case 0 -> body[at] = (byte) random.nextInt(256);
                    case 1 -> body = java.util.Arrays.copyOf(body, at);
                    default -> body[at] = "0123456789{}[]\",:-".getBytes(StandardCharsets.US_ASCII)[random.nextInt(18)];
                }
                if (body.length == 0) {
                    break;
                }
            }
            try {
                RangeRequest r = JsonRangeDecoder.decode(body, 10);
                for (SequenceRange range : r.ranges()) {
                    assertEquals(true, range.from().compareTo(range.to()) <= 0);
                }
                decoded++;
            } catch (BatchRejectedException expected) {
                assertEquals(false, expected.getMessage().isEmpty());
            }
        }
        assertEquals(true, decoded > 0 && decoded < iterations, decoded + " of " + iterations + " decoded");
    }
}
