package dev.dedup.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.dedup.client.JsonReader.MalformedJsonException;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class JsonReaderTest {

    @Test
    void theAgentsErrorBody_isAnObjectOfStrings() throws MalformedJsonException {
        Object value = JsonReader.read(
                "{\"error\":\"bad_request\",\"message\":\"items[3].id: empty\"}".getBytes(StandardCharsets.UTF_8));
        assertEquals(Map.of("error", "bad_request", "message", "items[3].id: empty"), value);
    }

    @Test
    void everyKindOfValue_nestedAndSpaced() throws MalformedJsonException {
        Object value = JsonReader.read(" {\n\t\"a\" : [1, -0, 2.5, -1.5e3, 1E+2, 3e-1, true, false, null],\r\n"
                + " \"o\": {\"e\": {}, \"l\": []}, \"s\": \"x\" } ");
        Map<String, Object> expected = new LinkedHashMap<>();
        expected.put(
                "a",
                Arrays.asList(
                        new BigDecimal("1"),
                        new BigDecimal("-0"),
                        new BigDecimal("2.5"),
                        new BigDecimal("-1.5e3"),
                        new BigDecimal("1E+2"),
                        new BigDecimal("3e-1"),
                        true,
                        false,
                        null));
        expected.put("o", Map.of("e", Map.of(), "l", List.of()));
        expected.put("s", "x");
        assertEquals(expected, value);
        assertEquals(List.of("a", "o", "s"), List.copyOf(((Map<?, ?>) value).keySet()), "field order kept");
    }

    @Test
    void scalarsAtTheTop() throws MalformedJsonException {
        assertEquals("s", JsonReader.read("\"s\""));
        assertEquals(new BigDecimal("42"), JsonReader.read("42"));
        assertEquals(true, JsonReader.read("true"));
        assertNull(JsonReader.read(" null "));
    }

    @Test
    void stringEscapes_areDecoded() throws MalformedJsonException {
        assertEquals(
                "\" \\ / \b \f \n \r \t \u00e9 \ud83d\ude00 \u20ac",
                JsonReader.read("\"\\\" \\\\ \\/ \\b \\f \\n \\r \\t \\u00e9 \\ud83d\\uDE00 \u20ac\""));
        assertEquals("\u20ac", JsonReader.read("\"\u20ac\"".getBytes(StandardCharsets.UTF_8)), "UTF-8 bytes");
    }

    @Test
    void aRepeatedName_keepsTheLastValue() throws MalformedJsonException {
        assertEquals(Map.of("error", "second"), JsonReader.read("{\"error\": \"first\", \"error\": \"second\"}"));
    }

    @Test
    void nestingUpToTheLimit_isRead() throws MalformedJsonException {
        String deepest = "[".repeat(JsonReader.MAX_DEPTH) + "]".repeat(JsonReader.MAX_DEPTH);
        Object value = JsonReader.read(deepest);
        for (int i = 1; i < JsonReader.MAX_DEPTH; i++) {
            value = ((List<?>) value).get(0);
        }
        assertEquals(Collections.emptyList(), value);
    }

    @Test
    void malformedTexts_areRefused_sayingWhere() {
        String[][] cases = {
            // text, what the message starts with, at character
            {"", "end of input, expected a value", "0"},
            {"   ", "end of input, expected a value", "3"},
            {"{", "expected a field name in double quotes", "1"},
            {"{\"a\"}", "expected ':'", "4"},
            {"{\"a\":1,}", "expected a field name in double quotes", "7"},
            {"{a:1}", "expected a field name in double quotes", "1"},
            {"{'a':1}", "expected a field name in double quotes", "1"},
            {"{\"a\":1 \"b\":2}", "expected '}'", "7"},
            {"[1,]", "expected a value", "3"},
            {"[1 2]", "expected ']'", "3"},
            {"[", "end of input, expected a value", "1"},
            {"01", "data after the value", "1"},
            {"1.", "expected a digit after the decimal point", "2"},
            {".5", "expected a value", "0"},
            {"-", "expected a digit", "1"},
            {"+1", "expected a value", "0"},
            {"1e", "expected a digit in the exponent", "2"},
            {"1e999999999999", "number out of range", "0"},
            {"NaN", "expected a value", "0"},
            {"Infinity", "expected a value", "0"},
            {"tru", "expected true", "0"},
            {"nul", "expected null", "0"},
            {"\"abc", "unterminated string", "4"},
            {"\"a\\x\"", "bad escape in a string", "2"},
            {"\"a\\", "bad escape in a string", "2"},
            {"\"\\u12g4\"", "bad \\u escape", "1"},
            {"\"\\u12\"", "truncated \\u escape", "1"},
            {"\"\\u1", "truncated \\u escape", "1"},
            {"\"tab\there\"", "control character in a string", "4"},
            {"{} x", "data after the value", "3"},
            {"{}{}", "data after the value", "2"},
            {"\ufeff{}", "expected a value", "0"},
            {"[".repeat(JsonReader.MAX_DEPTH + 1), "nested deeper than 64", String.valueOf(JsonReader.MAX_DEPTH)},
        };
        for (String[] c : cases) {
            MalformedJsonException e = assertThrows(MalformedJsonException.class, () -> JsonReader.read(c[0]), c[0]);
            assertEquals(c[1] + " at character " + c[2], e.getMessage(), c[0]);
            assertEquals(Integer.parseInt(c[2]), e.offset(), c[0]);
        }
    }

    @Test
    void bytesThatAreNotUtf8_areRefused() {
        byte[] notUtf8 = {'"', (byte) 0xc3, '(', '"'};
        MalformedJsonException e = assertThrows(MalformedJsonException.class, () -> JsonReader.read(notUtf8));
        assertEquals("not UTF-8 at character 0", e.getMessage());
    }
}
