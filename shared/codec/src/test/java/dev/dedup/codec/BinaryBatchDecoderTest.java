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
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

class BinaryBatchDecoderTest {

    private static final int MAX = 10_000;

    @Test
    void roundTrip_givesTheSameFingerprintsAsTheJsonFormOfTheSameItems() {
        List<Item> items = List.of(
                new Item("ce059644-18a0-4f27-bc2b-c2a2d4d4e7bf", "3:81418110694"),
                new Item("caf\u00e9 \u20ac \ud83d\ude00", "shard-0001:4960"),
                new Item("a\"b\\c\n\t\u0001", "o"),
                new Item("ce059644-18a0-4f27-bc2b-c2a2d4d4e7bf", "4:1"));

        Batch binary = BinaryBatchDecoder.decode(BatchEncoder.binary("clicks", items), MAX);
        Batch json = JsonBatchDecoder.decode(BatchEncoder.json("clicks", items), MAX);

        assertEquals("clicks", binary.namespace());
        assertEquals(4, binary.size());
        Batches.assertSame(json, binary);
        assertEquals(binary.key(0), binary.key(3), "same id, same key");
        assertNotEquals(binary.owner(0), binary.owner(3), "different owners");
    }

    @Test
    void decodingARangeOfALargerArray_readsOnlyThatRange() {
        byte[] body = BatchEncoder.binary("t", Batches.items("o", "a", "b"));
        byte[] padded = new byte[body.length + 10];
        Arrays.fill(padded, (byte) 0x7f);
        System.arraycopy(body, 0, padded, 5, body.length);

        Batches.assertSame(
                BinaryBatchDecoder.decode(body, MAX), BinaryBatchDecoder.decode(padded, 5, body.length, MAX));
    }

    @Test
    void namespaceLengthZero_meansTheDefaultNamespace() {
        Batch batch = BinaryBatchDecoder.decode(new Body().ns("").item("a", "o").bytes(), MAX);

        assertEquals(Limits.DEFAULT_NAMESPACE, batch.namespace());
        Batches.assertSame(
                BinaryBatchDecoder.decode(
                        new Body().ns("default").item("a", "o").bytes(), MAX),
                batch);
    }

    @Test
    void namespaceOnly_isAnEmptyBatch() {
        assertEquals(
                0, BinaryBatchDecoder.decode(new Body().ns("t").bytes(), MAX).size());
        assertEquals(0, BinaryBatchDecoder.decode(new byte[] {0}, MAX).size());
    }

    @Test
    void emptyBody_isRejected() {
        rejected(Reason.BAD_REQUEST, "body: empty", new byte[0]);
    }

    @Test
    void truncatedNamespace_isRejected() {
        rejected(Reason.BAD_REQUEST, "ns: truncated: length byte says 5 bytes, body has 3 after it", new byte[] {
            5, 'a', 'b', 'c'
        });
    }

    @Test
    void namespaceWithCharactersOutsideTheAlphabet_isRejected() {
        rejected(
                Reason.BAD_REQUEST,
                "ns: 'no spaces' is not a namespace",
                new Body().ns("no spaces").bytes());
        rejected(
                Reason.BAD_REQUEST,
                "ns: '\u00e9' is not a namespace",
                new Body().raw(1, 0xe9).bytes());
        rejected(
                Reason.BAD_REQUEST,
                "ns: 'a\\x00' is not a namespace",
                new Body().raw(2, 'a', 0).bytes());
    }

    @Test
    void namespaceOf65Characters_isRejected() {
        rejected(Reason.BAD_REQUEST, "ns: ", new Body().ns("n".repeat(65)).bytes());
        assertEquals(
                "n".repeat(64),
                BinaryBatchDecoder.decode(new Body().ns("n".repeat(64)).bytes(), MAX)
                        .namespace());
    }

    @Test
    void emptyId_isRejectedNamingTheItem() {
        rejected(
                Reason.BAD_REQUEST,
                "items[1].id: empty",
                new Body()
                        .ns("t")
                        .item("a", "o")
                        .field(new byte[0])
                        .field(utf8("o"))
                        .bytes());
    }

    @Test
    void emptyOwner_isRejectedNamingTheItem() {
        rejected(
                Reason.BAD_REQUEST,
                "items[0].owner: empty",
                new Body().ns("t").field(utf8("a")).field(new byte[0]).bytes());
    }

    @Test
    void idOf512Bytes_isAccepted_and513_isRejected() {
        assertEquals(
                1,
                BinaryBatchDecoder.decode(
                                new Body().ns("t").item("i".repeat(512), "o").bytes(), MAX)
                        .size());
        rejected(
                Reason.BAD_REQUEST,
                "items[0].id: 513 bytes, at most 512 allowed",
                new Body().ns("t").item("i".repeat(513), "o").bytes());
    }

    @Test
    void ownerOf128Bytes_isAccepted_and129_isRejected() {
        assertEquals(
                1,
                BinaryBatchDecoder.decode(
                                new Body().ns("t").item("a", "o".repeat(128)).bytes(), MAX)
                        .size());
        rejected(
                Reason.BAD_REQUEST,
                "items[0].owner: 129 bytes, at most 128 allowed",
                new Body().ns("t").item("a", "o".repeat(129)).bytes());
    }

    @Test
    void bodyEndingInsideALength_isRejectedWithItsOffset() {
        rejected(
                Reason.BAD_REQUEST,
                "items[1].id: truncated: body ends before its 2-byte length (offset 8)",
                new Body().ns("t").item("a", "o").raw(0).bytes());
        rejected(
                Reason.BAD_REQUEST,
                "items[0].owner: truncated: body ends before its 2-byte length (offset 5)",
                new Body().ns("t").field(utf8("a")).bytes());
    }

    @Test
    void truncatedLengthInARange_reportsTheOffsetWithinTheBody() {
        byte[] body = new Body().ns("t").item("a", "o").raw(0).bytes();
        byte[] padded = new byte[body.length + 7];
        System.arraycopy(body, 0, padded, 7, body.length);

        BatchRejectedException e = assertThrows(
                BatchRejectedException.class, () -> BinaryBatchDecoder.decode(padded, 7, body.length, MAX));
        assertEquals("items[1].id: truncated: body ends before its 2-byte length (offset 8)", e.getMessage());
    }

    @Test
    void bodyEndingInsideAField_isRejected() {
        rejected(
                Reason.BAD_REQUEST,
                "items[0].id: truncated: length says 4 bytes, body has 2 left",
                new Body().ns("t").raw(0, 4, 'a', 'b').bytes());
        rejected(
                Reason.BAD_REQUEST,
                "items[1].owner: truncated: length says 3 bytes, body has 1 left",
                new Body()
                        .ns("t")
                        .item("a", "o")
                        .field(utf8("b"))
                        .raw(0, 3, 'x')
                        .bytes());
    }

    @Test
    void exactlyMaxItems_isAccepted() {
        byte[] three = BatchEncoder.binary("t", Batches.items("o", "a", "b", "c"));
        assertEquals(3, BinaryBatchDecoder.decode(three, 3).size());
    }

    @Test
    void moreThanMaxItems_isTooLarge() {
        BatchRejectedException e = rejected(
                Reason.TOO_LARGE,
                "items: more than max-batch (3) items",
                BatchEncoder.binary("t", Batches.items("o", "a", "b", "c", "d")),
                3);
        assertFalse(e.getMessage().isEmpty());
    }

    @Test
    void idsAreOpaqueBytes_soInvalidUtf8IsAValidId() {
        byte[] uuid = {(byte) 0xce, 0x05, (byte) 0x96, 0x44, (byte) 0xff, (byte) 0xfe, 0, 0};
        Batch batch = BinaryBatchDecoder.decode(
                new Body().ns("t").field(uuid).field(utf8("o")).bytes(), MAX);
        assertEquals(1, batch.size());
    }

    @Test
    void manyItems_growTheBuilderBeyondItsFirstCapacity() {
        List<Item> items = new ArrayList<>();
        for (int i = 0; i < 10_000; i++) {
            items.add(new Item("id-" + i, "o"));
        }
        Batch batch = BinaryBatchDecoder.decode(BatchEncoder.binary("t", items), MAX);
        Batches.assertSame(JsonBatchDecoder.decode(BatchEncoder.json("t", items), MAX), batch);
    }

    // --- event times: the namespace-length byte's top bit, then a u32 second after every item ---

    @Test
    void eventTimes_areCarried_andGiveTheSameBatchAsTheJsonFormOfTheSameItems() {
        List<Item> items = Batches.timed(
                List.of(
                        new Item("ce059644-18a0-4f27-bc2b-c2a2d4d4e7bf", "3:81418110694"),
                        new Item("caf\u00e9 \u20ac \ud83d\ude00", "shard-0001:4960"),
                        new Item("ce059644-18a0-4f27-bc2b-c2a2d4d4e7bf", "4:1"),
                        new Item("x", "o")),
                1_767_225_600L,
                1,
                0x8000_0000L,
                Batch.MAX_EVENT_SECOND);

        Batch binary = BinaryBatchDecoder.decode(BatchEncoder.binary("clicks", items), MAX);
        Batch json = JsonBatchDecoder.decode(BatchEncoder.json("clicks", items), MAX);

        Batches.assertSame(json, binary);
        assertTrue(binary.hasEventTimes());
        assertEquals(
                List.of(1_767_225_600L, 1L, 2_147_483_648L, 4_294_967_295L),
                List.of(binary.eventSecond(0), binary.eventSecond(1), binary.eventSecond(2), binary.eventSecond(3)),
                "u32 seconds read unsigned");
        assertEquals(-1, binary.firstWithoutEventTime());
        Batches.assertSame(
                BinaryBatchDecoder.decode(BatchEncoder.binary("clicks", untimed(items)), MAX),
                binary.withoutEventTimes());
    }

    @Test
    void eventTimes_areTheFlagAndFourBytesPerItem() {
        byte[] body =
                new Body().nsTimed("t").item("a", "o").second(0x6955_b900L).bytes();
        assertEquals("8174" + "000161" + "00016f" + "6955b900", Batches.hex(body));

        Batch batch = BinaryBatchDecoder.decode(body, MAX);
        assertEquals("t", batch.namespace());
        assertEquals(1, batch.size());
        assertEquals(1_767_225_600L, batch.eventSecond(0));
        Batches.assertSame(
                JsonBatchDecoder.decode(
                        "{\"ns\": \"t\", \"items\": [{\"id\": \"a\", \"owner\": \"o\", \"ts\": 1767225600}]}"
                                .getBytes(StandardCharsets.UTF_8),
                        MAX),
                batch);
    }

    @Test
    void bodyOfAV1Client_withoutTheFlag_decodesAsBefore() {
        byte[] v1 = {1, 't', 0, 1, 'a', 0, 1, 'o', 0, 2, 'b', 'c', 0, 1, 'p'};
        assertEquals(
                Batches.hex(v1),
                Batches.hex(BatchEncoder.binary("t", List.of(new Item("a", "o"), new Item("bc", "p")))),
                "the encoder writes v1 bodies without event times");

        Batch batch = BinaryBatchDecoder.decode(v1, MAX);
        assertEquals("t", batch.namespace());
        assertEquals(2, batch.size());
        assertFalse(batch.hasEventTimes());
        assertEquals(Batch.NO_EVENT_TIME, batch.eventSecond(1));
        assertEquals(0, batch.firstWithoutEventTime());
        Batches.assertSame(
                JsonBatchDecoder.decode(BatchEncoder.json("t", List.of(new Item("a", "o"), new Item("bc", "p"))), MAX),
                batch);
        Batch timed = BinaryBatchDecoder.decode(
                BatchEncoder.binary("t", List.of(new Item("a", "o", 7), new Item("bc", "p", 8))), MAX);
        Batches.assertSame(batch, timed.withoutEventTimes());
    }

    @Test
    void flagWithNamespaceLengthZero_isTheDefaultNamespace_andFlagAlone_anEmptyBatch() {
        Batch batch = BinaryBatchDecoder.decode(
                new Body().raw(0x80).item("a", "o").second(9).bytes(), MAX);
        assertEquals(Limits.DEFAULT_NAMESPACE, batch.namespace());
        assertEquals(9, batch.eventSecond(0));

        Batch empty = BinaryBatchDecoder.decode(new byte[] {(byte) 0x80}, MAX);
        assertEquals(0, empty.size());
        assertEquals(-1, empty.firstWithoutEventTime());
        assertEquals(
                0,
                BinaryBatchDecoder.decode(new Body().nsTimed("t").bytes(), MAX).size());
    }

    @Test
    void withTheFlag_theNamespaceIsTheLowSevenBitsLong() {
        assertEquals(
                "n".repeat(64),
                BinaryBatchDecoder.decode(
                                new Body()
                                        .nsTimed("n".repeat(64))
                                        .item("a", "o")
                                        .second(1)
                                        .bytes(),
                                MAX)
                        .namespace());
        rejected(Reason.BAD_REQUEST, "ns: ", new Body().nsTimed("n".repeat(65)).bytes());
        rejected(Reason.BAD_REQUEST, "ns: ", new Body().nsTimed("n".repeat(127)).bytes());
        rejected(Reason.BAD_REQUEST, "ns: truncated: length byte says 5 bytes, body has 3 after it", new byte[] {
            (byte) 0x85, 'a', 'b', 'c'
        });
        rejected(Reason.BAD_REQUEST, "ns: truncated: length byte says 127 bytes, body has 0 after it", new byte[] {
            (byte) 0xff
        });
    }

    @Test
    void eventSecondZero_isRejectedNamingTheItem() {
        rejected(
                Reason.BAD_REQUEST,
                "items[1].ts: 0; event times are epoch seconds from 1",
                new Body()
                        .nsTimed("t")
                        .item("a", "o")
                        .second(5)
                        .item("b", "o")
                        .second(0)
                        .bytes());
        assertEquals(
                1,
                BinaryBatchDecoder.decode(
                                new Body().nsTimed("t").item("a", "o").second(1).bytes(), MAX)
                        .eventSecond(0));
    }

    @Test
    void bodyEndingInsideAnEventSecond_isRejectedNamingTheItemAndOffset() {
        byte[] whole = new Body()
                .nsTimed("t")
                .item("a", "o")
                .second(5)
                .item("b", "o")
                .second(6)
                .bytes();
        for (int missing = 1; missing <= 4; missing++) {
            BatchRejectedException e = rejected(
                    Reason.BAD_REQUEST, "items[1].ts: truncated", Arrays.copyOf(whole, whole.length - missing));
            assertEquals(
                    "items[1].ts: truncated: body ends before the 4-byte event second (offset 18); the "
                            + "namespace-length byte's top bit says every item has one",
                    e.getMessage());
        }
        byte[] padded = new byte[whole.length + 3];
        System.arraycopy(whole, 0, padded, 3, whole.length);
        BatchRejectedException e = assertThrows(
                BatchRejectedException.class, () -> BinaryBatchDecoder.decode(padded, 3, whole.length - 2, MAX));
        assertTrue(
                e.getMessage()
                        .startsWith(
                                "items[1].ts: truncated: body ends before the 4-byte event second " + "(offset 18)"),
                e.getMessage());
        Batches.assertSame(
                BinaryBatchDecoder.decode(whole, MAX), BinaryBatchDecoder.decode(padded, 3, whole.length, MAX));
    }

    @Test
    void v1BodySentWithTheFlag_isRejected_notMisread() {
        byte[] v1 = BatchEncoder.binary("t", Batches.items("o", "a"));
        byte[] flagged = v1.clone();
        flagged[0] |= (byte) BatchEncoder.EVENT_TIMES;
        rejected(Reason.BAD_REQUEST, "items[0].ts: truncated", flagged);
    }

    @Test
    void maxItems_countsTimedItemsAlike() {
        List<Item> four = Batches.timed(Batches.items("o", "a", "b", "c", "d"), 1, 2, 3, 4);
        assertEquals(
                4, BinaryBatchDecoder.decode(BatchEncoder.binary("t", four), 4).size());
        rejected(Reason.TOO_LARGE, "items: more than max-batch (3) items", BatchEncoder.binary("t", four), 3);
    }

    @Test
    void manyTimedItems_growTheBuilderBeyondItsFirstCapacity() {
        List<Item> items = new ArrayList<>();
        for (int i = 0; i < 10_000; i++) {
            items.add(new Item("id-" + i, "o", 1_767_225_600L + i));
        }
        Batch batch = BinaryBatchDecoder.decode(BatchEncoder.binary("t", items), MAX);
        Batches.assertSame(JsonBatchDecoder.decode(BatchEncoder.json("t", items), MAX), batch);
        assertEquals(1_767_235_599L, batch.eventSecond(9_999));
    }

    private static List<Item> untimed(List<Item> items) {
        return items.stream().map(i -> new Item(i.id(), i.owner())).toList();
    }

    private static BatchRejectedException rejected(Reason reason, String messageStart, byte[] body) {
        return rejected(reason, messageStart, body, MAX);
    }

    private static BatchRejectedException rejected(Reason reason, String messageStart, byte[] body, int max) {
        BatchRejectedException e =
                assertThrows(BatchRejectedException.class, () -> BinaryBatchDecoder.decode(body, max));
        assertEquals(reason, e.reason(), e.getMessage());
        if (!e.getMessage().startsWith(messageStart)) {
            assertEquals(messageStart, e.getMessage());
        }
        return e;
    }

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    /** Writes binary bodies field by field, including malformed ones. */
    private static final class Body {
        private final ByteArrayOutputStream out = new ByteArrayOutputStream();

        Body ns(String ns) {
            byte[] b = ns.getBytes(StandardCharsets.ISO_8859_1);
            out.write(b.length);
            out.writeBytes(b);
            return this;
        }

        /** The namespace with the event-times flag in its length byte. */
        Body nsTimed(String ns) {
            byte[] b = ns.getBytes(StandardCharsets.ISO_8859_1);
            out.write(b.length | BatchEncoder.EVENT_TIMES);
            out.writeBytes(b);
            return this;
        }

        /** An item's u32 event second. */
        Body second(long second) {
            BatchEncoder.writeEventSecond(out, second);
            return this;
        }

        Body field(byte[] b) {
            BatchEncoder.writeField(out, b);
            return this;
        }

        Body item(String id, String owner) {
            return field(utf8(id)).field(utf8(owner));
        }

        Body raw(int... values) {
            for (int v : values) {
                out.write(v);
            }
            return this;
        }

        byte[] bytes() {
            return out.toByteArray();
        }
    }
}
