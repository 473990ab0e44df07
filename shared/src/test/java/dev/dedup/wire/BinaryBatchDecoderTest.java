package dev.dedup.wire;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.dedup.wire.BatchRejectedException.Reason;
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

        Batches.assertSame(BinaryBatchDecoder.decode(body, MAX),
                BinaryBatchDecoder.decode(padded, 5, body.length, MAX));
    }

    @Test
    void namespaceLengthZero_meansTheDefaultNamespace() {
        Batch batch = BinaryBatchDecoder.decode(new Body().ns("").item("a", "o").bytes(), MAX);

        assertEquals(Limits.DEFAULT_NAMESPACE, batch.namespace());
        Batches.assertSame(BinaryBatchDecoder.decode(new Body().ns("default").item("a", "o").bytes(), MAX), batch);
    }

    @Test
    void namespaceOnly_isAnEmptyBatch() {
        assertEquals(0, BinaryBatchDecoder.decode(new Body().ns("t").bytes(), MAX).size());
        assertEquals(0, BinaryBatchDecoder.decode(new byte[] {0}, MAX).size());
    }

    @Test
    void emptyBody_isRejected() {
        rejected(Reason.BAD_REQUEST, "body: empty", new byte[0]);
    }

    @Test
    void truncatedNamespace_isRejected() {
        rejected(Reason.BAD_REQUEST, "ns: truncated: length byte says 5 bytes, body has 3 after it",
                new byte[] {5, 'a', 'b', 'c'});
    }

    @Test
    void namespaceWithCharactersOutsideTheAlphabet_isRejected() {
        rejected(Reason.BAD_REQUEST, "ns: 'no spaces' is not a namespace", new Body().ns("no spaces").bytes());
        rejected(Reason.BAD_REQUEST, "ns: '\u00e9' is not a namespace", new Body().raw(1, 0xe9).bytes());
        rejected(Reason.BAD_REQUEST, "ns: 'a\\x00' is not a namespace", new Body().raw(2, 'a', 0).bytes());
    }

    @Test
    void namespaceOf65Characters_isRejected() {
        rejected(Reason.BAD_REQUEST, "ns: ", new Body().ns("n".repeat(65)).bytes());
        assertEquals("n".repeat(64), BinaryBatchDecoder.decode(new Body().ns("n".repeat(64)).bytes(), MAX).namespace());
    }

    @Test
    void emptyId_isRejectedNamingTheItem() {
        rejected(Reason.BAD_REQUEST, "items[1].id: empty",
                new Body().ns("t").item("a", "o").field(new byte[0]).field(utf8("o")).bytes());
    }

    @Test
    void emptyOwner_isRejectedNamingTheItem() {
        rejected(Reason.BAD_REQUEST, "items[0].owner: empty",
                new Body().ns("t").field(utf8("a")).field(new byte[0]).bytes());
    }

    @Test
    void idOf512Bytes_isAccepted_and513_isRejected() {
        assertEquals(1, BinaryBatchDecoder.decode(new Body().ns("t").item("i".repeat(512), "o").bytes(), MAX).size());
        rejected(Reason.BAD_REQUEST, "items[0].id: 513 bytes, at most 512 allowed",
                new Body().ns("t").item("i".repeat(513), "o").bytes());
    }

    @Test
    void ownerOf128Bytes_isAccepted_and129_isRejected() {
        assertEquals(1, BinaryBatchDecoder.decode(new Body().ns("t").item("a", "o".repeat(128)).bytes(), MAX).size());
        rejected(Reason.BAD_REQUEST, "items[0].owner: 129 bytes, at most 128 allowed",
                new Body().ns("t").item("a", "o".repeat(129)).bytes());
    }

    @Test
    void bodyEndingInsideALength_isRejectedWithItsOffset() {
        rejected(Reason.BAD_REQUEST, "items[1].id: truncated: body ends before its 2-byte length (offset 8)",
                new Body().ns("t").item("a", "o").raw(0).bytes());
        rejected(Reason.BAD_REQUEST, "items[0].owner: truncated: body ends before its 2-byte length (offset 5)",
                new Body().ns("t").field(utf8("a")).bytes());
    }

    @Test
    void truncatedLengthInARange_reportsTheOffsetWithinTheBody() {
        byte[] body = new Body().ns("t").item("a", "o").raw(0).bytes();
        byte[] padded = new byte[body.length + 7];
        System.arraycopy(body, 0, padded, 7, body.length);

        BatchRejectedException e = assertThrows(BatchRejectedException.class,
                () -> BinaryBatchDecoder.decode(padded, 7, body.length, MAX));
        assertEquals("items[1].id: truncated: body ends before its 2-byte length (offset 8)", e.getMessage());
    }

    @Test
    void bodyEndingInsideAField_isRejected() {
        rejected(Reason.BAD_REQUEST, "items[0].id: truncated: length says 4 bytes, body has 2 left",
                new Body().ns("t").raw(0, 4, 'a', 'b').bytes());
        rejected(Reason.BAD_REQUEST, "items[1].owner: truncated: length says 3 bytes, body has 1 left",
                new Body().ns("t").item("a", "o").field(utf8("b")).raw(0, 3, 'x').bytes());
    }

    @Test
    void exactlyMaxItems_isAccepted() {
        byte[] three = BatchEncoder.binary("t", Batches.items("o", "a", "b", "c"));
        assertEquals(3, BinaryBatchDecoder.decode(three, 3).size());
    }

    @Test
    void moreThanMaxItems_isTooLarge() {
        BatchRejectedException e = rejected(Reason.TOO_LARGE, "items: more than max-batch (3) items",
                BatchEncoder.binary("t", Batches.items("o", "a", "b", "c", "d")), 3);
        assertFalse(e.getMessage().isEmpty());
    }

    @Test
    void idsAreOpaqueBytes_soInvalidUtf8IsAValidId() {
        byte[] uuid = {(byte) 0xce, 0x05, (byte) 0x96, 0x44, (byte) 0xff, (byte) 0xfe, 0, 0};
        Batch batch = BinaryBatchDecoder.decode(new Body().ns("t").field(uuid).field(utf8("o")).bytes(), MAX);
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

    private static BatchRejectedException rejected(Reason reason, String messageStart, byte[] body) {
        return rejected(reason, messageStart, body, MAX);
    }

    private static BatchRejectedException rejected(Reason reason, String messageStart, byte[] body, int max) {
        BatchRejectedException e = assertThrows(BatchRejectedException.class,
                () -> BinaryBatchDecoder.decode(body, max));
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
