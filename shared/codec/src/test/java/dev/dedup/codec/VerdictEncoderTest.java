package dev.dedup.codec;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class VerdictEncoderTest {

    @Test
    void claimsJson_namesEachVerdictInOrder() {
        assertEquals(
                "{\"verdicts\":[\"new\",\"retry\",\"duplicate\",\"duplicate\",\"new\"]}",
                text(VerdictEncoder.claimsJson(new byte[] {0, 1, 2, 2, 0})));
    }

    @Test
    void claimsJson_ofOneAndOfNoVerdicts() {
        assertEquals("{\"verdicts\":[\"duplicate\"]}", text(VerdictEncoder.claimsJson(new byte[] {2})));
        assertEquals("{\"verdicts\":[]}", text(VerdictEncoder.claimsJson(new byte[0])));
    }

    @Test
    void claimsJson_ofManyDuplicates_fitsItsBuffer() {
        byte[] codes = new byte[1000];
        java.util.Arrays.fill(codes, (byte) 2);
        String json = text(VerdictEncoder.claimsJson(codes));
        assertEquals("{\"verdicts\":[".length() + 1000 * "\"duplicate\",".length() - 1 + 2, json.length());
    }

    @Test
    void claimsJson_rejectsAnUnknownCode() {
        assertThrows(IllegalArgumentException.class, () -> VerdictEncoder.claimsJson(new byte[] {0, 3}));
    }

    @Test
    void releasesJson_isTrueForEveryNonZeroByte() {
        assertEquals(
                "{\"released\":[true,false,true,false]}", text(VerdictEncoder.releasesJson(new byte[] {1, 0, 1, 0})));
        assertEquals("{\"released\":[]}", text(VerdictEncoder.releasesJson(new byte[0])));
        assertEquals("{\"released\":[false,false]}", text(VerdictEncoder.releasesJson(new byte[] {0, 0})));
    }

    private static String text(byte[] bytes) {
        return new String(bytes, StandardCharsets.US_ASCII);
    }
}
