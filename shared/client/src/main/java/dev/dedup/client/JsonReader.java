package dev.dedup.client;

import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Reads one JSON text (RFC 8259) strictly, so that the client needs no JSON library: objects become
 * {@link Map}s (in field order; a repeated name keeps its last value), arrays {@link List}s, strings
 * {@link String}s, numbers {@link BigDecimal}s, {@code true}/{@code false} {@link Boolean}s and {@code null}
 * {@code null}. Anything else — bytes that are not UTF-8, a trailing comma, a single quote, a raw control
 * character in a string, a leading zero, data after the value, nesting deeper than {@link #MAX_DEPTH} —
 * is a {@link MalformedJsonException} that says where.
 *
 * <p>Enough for the agent's answers, which are small; not a streaming parser.
 */
final class JsonReader {

    /** The letters of JSON's one-letter escapes and the characters they stand for; the hex escape apart. */
    private static final String ESCAPED = "\"\\/bfnrt";

    private static final String UNESCAPED = "\"\\/\b\f\n\r\t";

    /** The deepest nesting read; deeper bodies are refused rather than risking the stack. */
    static final int MAX_DEPTH = 64;

    private final String text;
    private int pos;

    private JsonReader(String text) {
        this.text = text;
    }

    /** The value of a UTF-8 body. */
    static Object read(byte[] utf8) throws MalformedJsonException {
        String text;
        try {
            text = StandardCharsets.UTF_8
                    .newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(ByteBuffer.wrap(utf8))
                    .toString();
        } catch (CharacterCodingException e) {
            throw new MalformedJsonException("not UTF-8", 0);
        }
        return read(text);
    }

    /** The value of a JSON text. */
    static Object read(String text) throws MalformedJsonException {
        JsonReader reader = new JsonReader(text);
        reader.skipWhitespace();
        Object value = reader.value(0);
        reader.skipWhitespace();
        if (reader.pos < text.length()) {
            throw reader.malformed("data after the value");
        }
        return value;
    }

    private Object value(int depth) throws MalformedJsonException {
        int c = peek();
        if (c == '{') {
            return object(depth + 1);
        } else if (c == '[') {
            return array(depth + 1);
        } else if (c == '"') {
            return string();
        } else if (c == '-' || isDigit(c)) {
            return number();
        } else if (c == 't') {
            return literal("true", Boolean.TRUE);
        } else if (c == 'f') {
            return literal("false", Boolean.FALSE);
        } else if (c == 'n') {
            return literal("null", null);
        }
        throw malformed(c < 0 ? "end of input, expected a value" : "expected a value");
    }

    private Map<String, Object> object(int depth) throws MalformedJsonException {
        enter(depth);
        Map<String, Object> fields = new LinkedHashMap<>();
        skipWhitespace();
        if (peek() == '}') {
            pos++;
            return fields;
        }
        while (true) {
            skipWhitespace();
            if (peek() != '"') {
                throw malformed("expected a field name in double quotes");
            }
            String name = string();
            skipWhitespace();
            expect(':');
            skipWhitespace();
            fields.put(name, value(depth));
            skipWhitespace();
            if (peek() != ',') {
                expect('}');
                return fields;
            }
            pos++;
        }
    }

    private List<Object> array(int depth) throws MalformedJsonException {
        enter(depth);
        List<Object> values = new ArrayList<>();
        skipWhitespace();
        if (peek() == ']') {
            pos++;
            return values;
        }
        while (true) {
            skipWhitespace();
            values.add(value(depth));
            skipWhitespace();
            if (peek() != ',') {
                expect(']');
                return values;
            }
            pos++;
        }
    }

    /** Steps over the opening bracket of a container at {@code depth}. */
    private void enter(int depth) throws MalformedJsonException {
        if (depth > MAX_DEPTH) {
            throw malformed("nested deeper than " + MAX_DEPTH);
        }
        pos++;
    }

    private String string() throws MalformedJsonException {
        pos++; // the opening quote
        StringBuilder sb = new StringBuilder();
        while (true) {
            if (pos >= text.length()) {
                throw malformed("unterminated string");
            }
            char c = text.charAt(pos);
            if (c == '"') {
                pos++;
                return sb.toString();
            }
            if (c < 0x20) {
                throw malformed("control character in a string");
            }
            if (c != '\\') {
                sb.append(c);
                pos++;
                continue;
            }
            int escape = pos + 1 < text.length() ? text.charAt(pos + 1) : -1;
            int named = ESCAPED.indexOf(escape);
            if (named >= 0) {
                sb.append(UNESCAPED.charAt(named));
            } else if (escape == 'u') {
                sb.append(hex4(pos + 2));
                pos += 4;
            } else {
                throw malformed("bad escape in a string");
            }
            pos += 2;
        }
    }

    /** The UTF-16 unit of the four hex digits at {@code at} (a surrogate pair is two escapes). */
    private char hex4(int at) throws MalformedJsonException {
        if (at + 4 > text.length()) {
            throw malformed("truncated \\u escape");
        }
        int unit = 0;
        for (int i = at; i < at + 4; i++) {
            char c = text.charAt(i);
            int digit = c >= '0' && c <= '9'
                    ? c - '0'
                    : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
            if (digit < 0) {
                throw malformed("bad \\u escape");
            }
            unit = unit << 4 | digit;
        }
        return (char) unit;
    }

    private BigDecimal number() throws MalformedJsonException {
        int start = pos;
        if (peek() == '-') {
            pos++;
        }
        if (peek() == '0') {
            pos++;
        } else {
            digits("expected a digit");
        }
        if (peek() == '.') {
            pos++;
            digits("expected a digit after the decimal point");
        }
        if (peek() == 'e' || peek() == 'E') {
            pos++;
            if (peek() == '+' || peek() == '-') {
                pos++;
            }
            digits("expected a digit in the exponent");
        }
        try {
            return new BigDecimal(text.substring(start, pos));
        } catch (NumberFormatException e) { // an exponent beyond an int
            pos = start;
            throw malformed("number out of range");
        }
    }

    private void digits(String expected) throws MalformedJsonException {
        if (!isDigit(peek())) {
            throw malformed(expected);
        }
        while (isDigit(peek())) {
            pos++;
        }
    }

    private Object literal(String word, Object value) throws MalformedJsonException {
        if (!text.startsWith(word, pos)) {
            throw malformed("expected " + word);
        }
        pos += word.length();
        return value;
    }

    private void expect(char c) throws MalformedJsonException {
        if (peek() != c) {
            throw malformed("expected '" + c + "'");
        }
        pos++;
    }

    private void skipWhitespace() {
        while (pos < text.length()) {
            char c = text.charAt(pos);
            if (c != ' ' && c != '\t' && c != '\n' && c != '\r') {
                return;
            }
            pos++;
        }
    }

    /** The character at the position, or -1 at the end. */
    private int peek() {
        return pos < text.length() ? text.charAt(pos) : -1;
    }

    private static boolean isDigit(int c) {
        return c >= '0' && c <= '9';
    }

    private MalformedJsonException malformed(String what) {
        return new MalformedJsonException(what, pos);
    }

    /** The text is not one JSON value; {@link #offset()} is the character where reading stopped. */
    static final class MalformedJsonException extends Exception {

        private static final long serialVersionUID = 1L;

        private final int offset;

        MalformedJsonException(String what, int offset) {
            super(what + " at character " + offset, null, false, false);
            this.offset = offset;
        }

        int offset() {
            return offset;
        }
    }
}
