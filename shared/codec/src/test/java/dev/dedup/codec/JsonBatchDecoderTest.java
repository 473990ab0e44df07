package dev.dedup.codec;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dedup.wire.BatchEncoder;
import dev.dedup.wire.BatchRejectedException;
import dev.dedup.wire.BatchRejectedException.Reason;
import dev.dedup.wire.Item;
import dev.dedup.wire.Limits;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

class JsonBatchDecoderTest {

    private static final int MAX = 10_000;

    @Test
    void decodesTheContractExample() {
        Batch batch = decode("{\"ns\": \"clicks\", \"items\": [{\"id\": \"ce059644-18a0-4f27-bc2b-c2a2d4d4e7bf\", "
                + "\"owner\": \"3:81418110694\"}]}");

        assertEquals("clicks", batch.namespace());
        assertEquals(1, batch.size());
        assertTrue(batch.key(0) != 0);
    }

    @Test
    void namespaceIsOptional_andDefaultsToDefault() {
        Batch batch = decode("{\"items\": [{\"id\": \"a\", \"owner\": \"o\"}]}");

        assertEquals(Limits.DEFAULT_NAMESPACE, batch.namespace());
        Batches.assertSame(decode("{\"ns\": \"default\", \"items\": [{\"id\": \"a\", \"owner\": \"o\"}]}"), batch);
    }

    @Test
    void namespaceAfterItems_givesTheSameFingerprintsAsBefore() {
        Batch after = decode("{\"items\": [{\"id\": \"a\", \"owner\": \"o\"}, {\"id\": \"b\", \"owner\": \"p\"}],"
                + " \"ns\": \"clicks\"}");
        Batch before = decode("{\"ns\": \"clicks\", \"items\": [{\"id\": \"a\", \"owner\": \"o\"}, "
                + "{\"id\": \"b\", \"owner\": \"p\"}]}");

        assertEquals("clicks", after.namespace());
        Batches.assertSame(before, after);
    }

    @Test
    void fieldOrderWithinAnItem_doesNotMatter() {
        Batches.assertSame(
                decode("{\"items\": [{\"id\": \"a\", \"owner\": \"o\"}]}"),
                decode("{\"items\": [{\"owner\": \"o\", \"id\": \"a\"}]}"));
    }

    @Test
    void sameIdInTwoNamespaces_getsDifferentKeysAndRoutes_butTheSameOwner() {
        Batch clicks = decode(BatchEncoder.json("clicks", Batches.items("o", "a")));
        Batch views = decode(BatchEncoder.json("views", Batches.items("o", "a")));

        assertNotEquals(clicks.key(0), views.key(0));
        assertNotEquals(clicks.route(0), views.route(0));
        assertEquals(clicks.owner(0), views.owner(0));
    }

    @Test
    void missingItems_isRejected() {
        rejected("items: missing", "{\"ns\": \"t\"}");
        rejected("items: missing", "{}");
    }

    @Test
    void emptyItemsArray_isAnEmptyBatch() {
        assertEquals(0, decode("{\"items\": []}").size());
    }

    @Test
    void idThatIsANumber_isRejectedNamingTheItem() {
        rejected("items[3].id: must be a string, got a number", itemsWithFourth("{\"id\": 17, \"owner\": \"o\"}"));
    }

    @Test
    void ownerThatIsNull_isRejectedNamingTheItem() {
        rejected("items[3].owner: must be a string, got null", itemsWithFourth("{\"id\": \"d\", \"owner\": null}"));
    }

    @Test
    void itemThatIsNotAnObject_isRejectedNamingTheItem() {
        rejected("items[3]: must be an object", itemsWithFourth("[\"d\", \"o\"]"));
        rejected("items[3]: must be an object", itemsWithFourth("\"d\""));
    }

    @Test
    void itemsThatIsNotAnArray_isRejected() {
        rejected("items: must be an array, got an object", "{\"items\": {\"id\": \"a\", \"owner\": \"o\"}}");
        rejected("items: must be an array, got null", "{\"items\": null}");
    }

    @Test
    void namespaceThatIsNotAString_orNotInTheAlphabet_isRejected() {
        rejected("ns: must be a string, got a number", "{\"ns\": 1, \"items\": []}");
        rejected("ns: empty is not a namespace", "{\"ns\": \"\", \"items\": []}");
        rejected("ns: 'a/b' is not a namespace", "{\"ns\": \"a/b\", \"items\": []}");
    }

    @Test
    void missingOrEmptyFields_areRejectedNamingTheItem() {
        rejected("items[3].id: missing", itemsWithFourth("{\"owner\": \"o\"}"));
        rejected("items[3].owner: missing", itemsWithFourth("{\"id\": \"d\"}"));
        rejected("items[3].id: empty", itemsWithFourth("{\"id\": \"\", \"owner\": \"o\"}"));
        rejected("items[3].owner: empty", itemsWithFourth("{\"id\": \"d\", \"owner\": \"\"}"));
    }

    @Test
    void unknownFields_areIgnored_includingNestedObjectsAndArrays() {
        Batch plain = decode("{\"ns\": \"t\", \"items\": [{\"id\": \"a\", \"owner\": \"o\"}]}");
        Batch extra = decode("{\"v\": 2, \"ns\": \"t\", \"meta\": {\"items\": [1, {\"id\": []}], \"x\": null},"
                + " \"items\": [{\"trace\": [[{\"id\": 1}], {}], \"id\": \"a\", \"n\": 1.5e3, \"owner\": \"o\","
                + " \"ok\": true}], \"tail\": [\"]\", \"}\"]}");

        Batches.assertSame(plain, extra);
    }

    @Test
    void duplicateField_isRejected() {
        rejected("body: malformed JSON at line 1", "{\"ns\": \"t\", \"ns\": \"u\", \"items\": []}");
        rejected("body: malformed JSON", "{\"items\": [], \"items\": []}");
        rejected("body: malformed JSON", "{\"items\": [{\"id\": \"a\", \"id\": \"b\", \"owner\": \"o\"}]}");
    }

    @Test
    void trailingData_isRejected() {
        rejected("body: unexpected data after the JSON object", "{\"items\": []} {}");
        rejected("body: unexpected data after the JSON object", "{\"items\": []} 1");
        rejected("body: malformed JSON", "{\"items\": []}x");
        assertEquals(0, decode("{\"items\": []}\n  \t").size());
    }

    @Test
    void malformedJson_isRejectedWithLineAndColumn() {
        BatchRejectedException e = rejected(
                "body: malformed JSON at line 2, column ", "{\"items\": [\n{\"id\": \"a\" \"owner\": \"o\"}]}");
        assertTrue(e.getMessage().matches("body: malformed JSON at line 2, column \\d+: .*"), e.getMessage());
        rejected("body: malformed JSON at line 1, column ", "{\"items\": [");
    }

    @Test
    void bodyThatIsNotAnObject_isRejected() {
        rejected("body: expected a JSON object", "");
        rejected("body: expected a JSON object", "[]");
        rejected("body: expected a JSON object", "null");
    }

    @Test
    void idLength_isCountedInUtf8Bytes() {
        assertEquals(
                1,
                decode(BatchEncoder.json("t", List.of(new Item("\u20ac".repeat(170) + "ab", "o"))))
                        .size());
        rejected(
                "items[0].id: 513 UTF-8 bytes, at most 512 allowed",
                BatchEncoder.json("t", List.of(new Item("\u20ac".repeat(171), "o"))));
        rejected(
                "items[0].id: 513 UTF-8 bytes, at most 512 allowed",
                BatchEncoder.json("t", List.of(new Item("\u20ac".repeat(170) + "abc", "o"))));
        rejected(
                "items[0].id: longer than 512 UTF-8 bytes",
                BatchEncoder.json("t", List.of(new Item("i".repeat(513), "o"))));
        assertEquals(
                1,
                decode(BatchEncoder.json("t", List.of(new Item("i".repeat(512), "o"))))
                        .size());
    }

    @Test
    void ownerLength_isCountedInUtf8Bytes() {
        assertEquals(
                1,
                decode(BatchEncoder.json("t", List.of(new Item("a", "\ud83d\ude00".repeat(32)))))
                        .size());
        rejected(
                "items[0].owner: 129 UTF-8 bytes, at most 128 allowed",
                BatchEncoder.json("t", List.of(new Item("a", "\ud83d\ude00".repeat(32) + "x"))));
    }

    @Test
    void unpairedSurrogate_isRejectedAsNotValidUnicode() {
        rejected("items[0].id: not valid Unicode", "{\"items\": [{\"id\": \"a\\ud800\", \"owner\": \"o\"}]}");
        rejected("items[0].owner: not valid Unicode", "{\"items\": [{\"id\": \"a\", \"owner\": \"\\udc00x\"}]}");
        // Encoded in UTF-8 directly (CESU-style), a lone surrogate is refused too.
        byte[] raw = "{\"items\": [{\"id\": \"a?\", \"owner\": \"o\"}]}".getBytes(StandardCharsets.UTF_8);
        byte[] cesu = new byte[raw.length + 2];
        int q = indexOf(raw, (byte) '?');
        System.arraycopy(raw, 0, cesu, 0, q);
        cesu[q] = (byte) 0xed;
        cesu[q + 1] = (byte) 0xa0;
        cesu[q + 2] = (byte) 0x80;
        System.arraycopy(raw, q + 1, cesu, q + 3, raw.length - q - 1);
        BatchRejectedException e = assertThrows(BatchRejectedException.class, () -> decode(cesu));
        assertEquals(Reason.BAD_REQUEST, e.reason());
    }

    @Test
    void escapedAndRawFormsOfAString_giveTheSameFingerprint() {
        Batch raw = decode("{\"items\": [{\"id\": \"caf\u00e9 \u20ac \ud83d\ude00 /\", \"owner\": \"o\"}]}");
        Batch escaped = decode(
                "{\"items\": [{\"id\": \"caf\\u00e9 \\u20AC \\ud83d\\ude00 \\/\", " + "\"owner\": \"\\u006f\"}]}");

        Batches.assertSame(raw, escaped);
    }

    @Test
    void surrogatePair_isOneCharacter_andMatchesTheBinaryBytes() {
        String id = "\ud83d\ude00";
        Batches.assertSame(
                BinaryBatchDecoder.decode(BatchEncoder.binary("t", List.of(new Item(id, "o"))), MAX),
                decode("{\"ns\": \"t\", \"items\": [{\"id\": \"\\ud83d\\ude00\", \"owner\": \"o\"}]}"));
    }

    @Test
    void deeplyNestedJunk_isRejectedNotAStackOverflow() {
        rejected("body: ", "[".repeat(10_000));
        rejected("body: ", "{\"items\": [], \"x\": " + "[".repeat(10_000));
        rejected("body: ", "{\"items\": [], \"x\": " + "{\"a\":".repeat(10_000));
        rejected("body: ", "{\"items\": [{\"id\": \"a\", \"owner\": \"o\", \"x\": " + "[".repeat(100_000));
    }

    @Test
    void nestingUpToTheLimit_isAcceptedInUnknownFields() {
        String nested = "[".repeat(60) + "]".repeat(60);
        assertEquals(
                1,
                decode("{\"x\": " + nested + ", \"items\": [{\"id\": \"a\", \"owner\": \"o\"}]}")
                        .size());
    }

    @Test
    void exactlyMaxItems_isAccepted_andOneMoreIsTooLarge() {
        assertEquals(
                3,
                JsonBatchDecoder.decode(BatchEncoder.json("t", Batches.items("o", "a", "b", "c")), 3)
                        .size());
        BatchRejectedException e = assertThrows(
                BatchRejectedException.class,
                () -> JsonBatchDecoder.decode(BatchEncoder.json("t", Batches.items("o", "a", "b", "c", "d")), 3));
        assertEquals(Reason.TOO_LARGE, e.reason());
        assertEquals("items: more than max-batch (3) items", e.getMessage());
    }

    @Test
    void invalidUtf8Bytes_areRejected() {
        byte[] body = "{\"items\": [{\"id\": \"a?\", \"owner\": \"o\"}]}".getBytes(StandardCharsets.UTF_8);
        body[indexOf(body, (byte) '?')] = (byte) 0xff;
        BatchRejectedException e = assertThrows(BatchRejectedException.class, () -> decode(body));
        assertEquals(Reason.BAD_REQUEST, e.reason());
    }

    @Test
    void decodingARangeOfALargerArray_readsOnlyThatRange() {
        byte[] body = BatchEncoder.json("t", Batches.items("o", "a", "b"));
        byte[] padded = new byte[body.length + 6];
        System.arraycopy(body, 0, padded, 3, body.length);
        padded[0] = '{';
        padded[padded.length - 1] = '}';

        Batches.assertSame(decode(body), JsonBatchDecoder.decode(padded, 3, body.length, MAX));
    }

    // --- event times ("ts") ---

    @Test
    void ts_isCarriedPerItem_andLeavesTheFingerprintsAsTheyAre() {
        Batch timed = decode(
                "{\"ns\": \"t\", \"items\": [{\"id\": \"a\", \"owner\": \"o\", \"ts\": 1767225600},"
                        + " {\"ts\": 1, \"id\": \"b\", \"owner\": \"p\"}, {\"id\": \"c\", \"ts\": 4294967295, \"owner\": \"q\"}]}");
        Batch plain = decode("{\"ns\": \"t\", \"items\": [{\"id\": \"a\", \"owner\": \"o\"},"
                + " {\"id\": \"b\", \"owner\": \"p\"}, {\"id\": \"c\", \"owner\": \"q\"}]}");

        assertTrue(timed.hasEventTimes());
        assertEquals(1_767_225_600L, timed.eventSecond(0));
        assertEquals(1L, timed.eventSecond(1));
        assertEquals(Batch.MAX_EVENT_SECOND, timed.eventSecond(2));
        assertEquals(-1, timed.firstWithoutEventTime());
        assertFalse(plain.hasEventTimes());
        assertEquals(Batch.NO_EVENT_TIME, plain.eventSecond(0));
        assertEquals(0, plain.firstWithoutEventTime());
        Batches.assertSame(plain, timed.withoutEventTimes());
        for (int i = 0; i < 3; i++) {
            assertEquals(plain.key(i), timed.key(i));
            assertEquals(plain.route(i), timed.route(i));
            assertEquals(plain.owner(i), timed.owner(i));
        }
    }

    @Test
    void ts_onSomeItemsOnly_leavesTheOthersWithout_andNamesTheFirstOfThem() {
        Batch mixed = decode(itemsWithFourth("{\"id\": \"d\", \"owner\": \"o\", \"ts\": 1767225600}"));
        assertTrue(mixed.hasEventTimes());
        assertEquals(Batch.NO_EVENT_TIME, mixed.eventSecond(0));
        assertEquals(1_767_225_600L, mixed.eventSecond(3));
        assertEquals(0, mixed.firstWithoutEventTime());

        Batch lastMissing = decode("{\"items\": [{\"id\": \"a\", \"owner\": \"o\", \"ts\": 5}, "
                + "{\"id\": \"b\", \"owner\": \"o\", \"ts\": 6}, {\"id\": \"c\", \"owner\": \"o\"}]}");
        assertEquals(2, lastMissing.firstWithoutEventTime());
    }

    @Test
    void ts_survivesTheBuilderGrowing_andSubsetsKeepIt() {
        StringBuilder sb = new StringBuilder("{\"items\": [");
        for (int i = 0; i < 300; i++) {
            sb.append(i == 0 ? "" : ", ").append("{\"id\": \"id-").append(i).append("\", \"owner\": \"o\"");
            if (i >= 100) { // the first event time arrives after the builder's first capacity of 64
                sb.append(", \"ts\": ").append(1_000_000 + i);
            }
            sb.append('}');
        }
        Batch batch = decode(sb.append("]}").toString());

        assertEquals(300, batch.size());
        assertEquals(Batch.NO_EVENT_TIME, batch.eventSecond(99));
        assertEquals(1_000_100, batch.eventSecond(100));
        assertEquals(1_000_299, batch.eventSecond(299));
        Batch sub = batch.subset(new int[] {299, 5, 150}, 3);
        assertEquals(
                List.of(1_000_299L, Batch.NO_EVENT_TIME, 1_000_150L),
                List.of(sub.eventSecond(0), sub.eventSecond(1), sub.eventSecond(2)));
        assertEquals(batch.key(150), sub.key(2));
        assertEquals(1, sub.firstWithoutEventTime());
        assertFalse(decode("{\"items\": [{\"id\": \"a\", \"owner\": \"o\"}]}")
                .subset(new int[] {0}, 1)
                .hasEventTimes());
    }

    @Test
    void tsThatIsNotAWholeNumber_isRejectedNamingTheItem() {
        rejected(
                "items[3].ts: must be whole epoch seconds, got a fraction",
                itemsWithFourth("{\"id\": \"d\", \"owner\": \"o\", \"ts\": 1767225600.5}"));
        rejected(
                "items[3].ts: must be whole epoch seconds, got a fraction",
                itemsWithFourth("{\"id\": \"d\", \"owner\": \"o\", \"ts\": 1767225600.0}"));
        rejected(
                "items[3].ts: must be whole epoch seconds, got a string",
                itemsWithFourth("{\"id\": \"d\", \"owner\": \"o\", \"ts\": \"1767225600\"}"));
        rejected(
                "items[3].ts: must be whole epoch seconds, got null",
                itemsWithFourth("{\"id\": \"d\", \"owner\": \"o\", \"ts\": null}"));
        rejected(
                "items[3].ts: must be whole epoch seconds, got a boolean",
                itemsWithFourth("{\"id\": \"d\", \"owner\": \"o\", \"ts\": true}"));
        rejected(
                "items[3].ts: must be whole epoch seconds, got an array",
                itemsWithFourth("{\"id\": \"d\", \"owner\": \"o\", \"ts\": [1767225600]}"));
        rejected(
                "items[3].ts: must be whole epoch seconds, got an object",
                itemsWithFourth("{\"ts\": {\"s\": 1}, \"id\": \"d\", \"owner\": \"o\"}"));
    }

    @Test
    void tsOutOfRange_isRejectedNamingTheItem_withAHintForMilliseconds() {
        assertRejectedExactly("items[3].ts: 0 is not epoch seconds (1 to 4294967295)", "0");
        assertRejectedExactly("items[3].ts: 0 is not epoch seconds (1 to 4294967295)", "-0");
        assertRejectedExactly("items[3].ts: -1 is not epoch seconds (1 to 4294967295)", "-1");
        assertRejectedExactly("items[3].ts: -1767225600 is not epoch seconds (1 to 4294967295)", "-1767225600");
        assertRejectedExactly(
                "items[3].ts: 4294967296 is not epoch seconds (1 to 4294967295); milliseconds?", "4294967296");
        assertRejectedExactly(
                "items[3].ts: 1767225600000 is not epoch seconds (1 to 4294967295); milliseconds?", "1767225600000");
        assertRejectedExactly(
                "items[3].ts: 9223372036854775807 is not epoch seconds (1 to 4294967295); milliseconds?",
                "9223372036854775807");
        assertRejectedExactly(
                "items[3].ts: 9223372036854775808 is not epoch seconds (1 to 4294967295)", "9223372036854775808");
        assertRejectedExactly(
                "items[3].ts: 123456789012345678901234567890 is not epoch seconds (1 to 4294967295)",
                "123456789012345678901234567890");
        assertRejectedExactly(
                "items[3].ts: -99999999999999999999 is not epoch seconds (1 to 4294967295)", "-99999999999999999999");
        assertEquals(
                Batch.MAX_EVENT_SECOND,
                decode(itemsWithFourth("{\"id\": \"d\", \"owner\": \"o\", \"ts\": 4294967295}"))
                        .eventSecond(3));
    }

    @Test
    void tsRejection_comesBeforeAnyLaterItemIsRead() {
        rejected("items[0].ts: 0 is not", "{\"items\": [{\"id\": \"a\", \"owner\": \"o\", \"ts\": 0}, {\"id\": 5}]}");
        rejected("body: malformed JSON", "{\"items\": [{\"id\": \"a\", \"owner\": \"o\", \"ts\": 1, \"ts\": 2}]}");
        rejected("body: malformed JSON", "{\"items\": [{\"id\": \"a\", \"owner\": \"o\", \"ts\": 017}]}");
    }

    @Test
    void tsOutsideAnItem_isAnUnknownFieldAndIgnored() {
        Batch batch = decode("{\"ts\": 0, \"items\": [{\"id\": \"a\", \"owner\": \"o\", \"meta\": {\"ts\": \"x\"}}]}");
        assertFalse(batch.hasEventTimes());
    }

    private static String itemsWithFourth(String fourth) {
        return "{\"ns\": \"t\", \"items\": [{\"id\": \"a\", \"owner\": \"o\"}, {\"id\": \"b\", \"owner\": \"o\"}, "
                + "{\"id\": \"c\", \"owner\": \"o\"}, " + fourth + "]}";
    }

    private static int indexOf(byte[] bytes, byte b) {
        for (int i = 0; i < bytes.length; i++) {
            if (bytes[i] == b) {
                return i;
            }
        }
        throw new AssertionError("no " + (char) b);
    }

    private static Batch decode(String json) {
        return decode(json.getBytes(StandardCharsets.UTF_8));
    }

    private static Batch decode(byte[] json) {
        return JsonBatchDecoder.decode(json, MAX);
    }

    /** The fourth item carries {@code ts} as given, and the whole message must be {@code expected}. */
    private static void assertRejectedExactly(String expected, String ts) {
        BatchRejectedException e =
                rejected(expected, itemsWithFourth("{\"id\": \"d\", \"owner\": \"o\", \"ts\": " + ts + "}"));
        assertEquals(expected, e.getMessage());
    }

    private static BatchRejectedException rejected(String messageStart, String json) {
        return rejected(messageStart, json.getBytes(StandardCharsets.UTF_8));
    }

    private static BatchRejectedException rejected(String messageStart, byte[] json) {
        BatchRejectedException e = assertThrows(BatchRejectedException.class, () -> decode(json));
        assertEquals(Reason.BAD_REQUEST, e.reason(), e.getMessage());
        if (!e.getMessage().startsWith(messageStart)) {
            assertEquals(messageStart, e.getMessage());
        }
        return e;
    }
}
