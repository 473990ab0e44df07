package dev.dedup.wire;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

class VerdictTest {

    @Test
    void verdictOfCode_mapsTheThreeWireBytes() {
        assertEquals(Verdict.NEW, Verdict.ofCode((byte) 0));
        assertEquals(Verdict.RETRY, Verdict.ofCode((byte) 1));
        assertEquals(Verdict.DUPLICATE, Verdict.ofCode((byte) 2));
        for (Verdict v : Verdict.values()) {
            assertEquals(v, Verdict.ofCode(v.code()));
        }
        assertEquals("new", Verdict.NEW.wireName());
        assertEquals("retry", Verdict.RETRY.wireName());
        assertEquals("duplicate", Verdict.DUPLICATE.wireName());
    }

    @Test
    void verdictOfCode_rejectsCodesOutOfRange() {
        assertThrows(IllegalArgumentException.class, () -> Verdict.ofCode((byte) 3));
        assertThrows(IllegalArgumentException.class, () -> Verdict.ofCode((byte) -1));
        assertThrows(IllegalArgumentException.class, () -> Verdict.ofCode((byte) 0x7f));
        assertThrows(IllegalArgumentException.class, () -> Verdict.ofCode((byte) 0x80));
    }
}
