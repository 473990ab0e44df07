package dev.dedup.wire;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import java.util.List;
import org.junit.jupiter.api.Test;

class BatchEncoderTest {

    @Test
    void binaryWithoutEventTimes_isTheV1Body() {
        assertEquals(
                "0174" + "000161" + "00016f" + "00026263" + "000170",
                hex(BatchEncoder.binary("t", List.of(new Item("a", "o"), new Item("bc", "p")))));
    }

    @Test
    void binaryWithEventTimes_setsTheFlag_andAppendsAU32BigEndianPerItem() {
        byte[] body = BatchEncoder.binary(
                "t", List.of(new Item("a", "o", 1_767_225_600L), new Item("bc", "p", Limits.MAX_EVENT_SECOND)));
        assertEquals("8174" + "000161" + "00016f" + "6955b900" + "00026263" + "000170" + "ffffffff", hex(body));
    }

    @Test
    void jsonWritesTsOnlyForItemsThatHaveOne() {
        assertEquals(
                "{\"ns\":\"t\",\"items\":[{\"id\":\"a\",\"owner\":\"o\",\"ts\":1767225600},"
                        + "{\"id\":\"b\",\"owner\":\"p\"},{\"id\":\"c\",\"owner\":\"q\",\"ts\":4294967295}]}",
                text(BatchEncoder.json(
                        "t",
                        List.of(
                                new Item("a", "o", 1_767_225_600L),
                                new Item("b", "p"),
                                new Item("c", "q", Limits.MAX_EVENT_SECOND)))));
        assertEquals(
                "{\"ns\":\"t\",\"items\":[{\"id\":\"a\",\"owner\":\"o\"}]}",
                text(BatchEncoder.json("t", List.of(new Item("a", "o")))));
    }

    @Test
    void binaryRefusesAMixOfItemsWithAndWithoutEventTimes() {
        IllegalArgumentException e = assertThrows(
                IllegalArgumentException.class,
                () -> BatchEncoder.binary(
                        "t", List.of(new Item("a", "o", 5), new Item("b", "o"), new Item("c", "o", 6))));
        assertEquals(
                "a binary batch carries event times for every item or for none; 2 of 3 items have one", e.getMessage());
        assertThrows(
                IllegalArgumentException.class,
                () -> BatchEncoder.binary("t", List.of(new Item("a", "o"), new Item("b", "o", 1))));
    }

    @Test
    void binaryNamespaceIsAtMost127Bytes_sinceTheTopBitIsTheFlag() {
        IllegalArgumentException e =
                assertThrows(IllegalArgumentException.class, () -> BatchEncoder.binary("n".repeat(128), List.of()));
        assertEquals("namespace longer than 127 bytes", e.getMessage());
        assertEquals(127, BatchEncoder.binary("n".repeat(127), List.of())[0], "no flag without event times");
    }

    @Test
    void anItemsEventSecond_isOneToTwoToThe32MinusOne_orNone() {
        assertFalse(new Item("a", "o").hasEventTime());
        assertEquals(new Item("a", "o"), new Item("a", "o", Limits.NO_EVENT_TIME));
        assertTrue(new Item("a", "o", 1).hasEventTime());
        assertTrue(new Item("a", "o", Limits.MAX_EVENT_SECOND).hasEventTime());
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> new Item("a", "o", -1));
        assertEquals("eventSecond: -1 is not epoch seconds from 1 to 4294967295", e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> new Item("a", "o", Limits.MAX_EVENT_SECOND + 1));
        assertThrows(
                IllegalArgumentException.class,
                () -> new Item("a", "o", 1_767_225_600_000L),
                "milliseconds are refused at the client");
    }

    private static String text(byte[] json) {
        return new String(json, StandardCharsets.UTF_8);
    }

    private static String hex(byte[] bytes) {
        return HexFormat.of().formatHex(bytes);
    }
}
