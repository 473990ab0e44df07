package dev.dedup.codec;

import dev.dedup.wire.Verdict;
import java.nio.charset.StandardCharsets;
import java.util.function.IntFunction;

/** Writes claim and release answers in the contract's JSON and binary forms. */
public final class VerdictEncoder {

    private static final byte[][] JSON_VERDICTS = {
        "\"new\"".getBytes(StandardCharsets.US_ASCII),
        "\"retry\"".getBytes(StandardCharsets.US_ASCII),
        "\"duplicate\"".getBytes(StandardCharsets.US_ASCII),
    };
    private static final byte[] VERDICTS_OPEN = "{\"verdicts\":[".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] RELEASED_OPEN = "{\"released\":[".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] TRUE = "true".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] FALSE = "false".getBytes(StandardCharsets.US_ASCII);

    private VerdictEncoder() {}

    /** {@code {"verdicts":["new",...]}} from verdict codes (0 new, 1 retry, 2 duplicate). */
    public static byte[] claimsJson(byte[] codes) {
        return jsonArray(
                VERDICTS_OPEN,
                codes,
                12,
                code -> JSON_VERDICTS[Verdict.ofCode((byte) code).ordinal()]);
    }

    /** {@code {"released":[true,...]}} from release results (1 released, 0 not held by that owner). */
    public static byte[] releasesJson(byte[] released) {
        return jsonArray(RELEASED_OPEN, released, 6, result -> result != 0 ? TRUE : FALSE);
    }

    /**
     * {@code open}, each value's token (at most {@code tokenBytes} bytes, its comma included), then the closing
     * bracket and brace.
     */
    private static byte[] jsonArray(byte[] open, byte[] values, int tokenBytes, IntFunction<byte[]> token) {
        Out out = new Out(open.length + values.length * tokenBytes + 2);
        out.put(open);
        for (int i = 0; i < values.length; i++) {
            if (i > 0) {
                out.put((byte) ',');
            }
            out.put(token.apply(values[i]));
        }
        return out.put((byte) ']').put((byte) '}').toArray();
    }

    private static final class Out {
        private final byte[] buf;
        private int pos;

        Out(int capacity) {
            buf = new byte[capacity];
        }

        Out put(byte[] bytes) {
            System.arraycopy(bytes, 0, buf, pos, bytes.length);
            pos += bytes.length;
            return this;
        }

        Out put(byte b) {
            buf[pos++] = b;
            return this;
        }

        byte[] toArray() {
            return pos == buf.length ? buf : java.util.Arrays.copyOf(buf, pos);
        }
    }
}
