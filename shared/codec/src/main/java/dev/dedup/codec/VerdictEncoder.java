package dev.dedup.codec;

import dev.dedup.wire.Verdict;
import java.nio.charset.StandardCharsets;

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
        Out out = new Out(VERDICTS_OPEN.length + codes.length * 12 + 2);
        out.put(VERDICTS_OPEN);
        for (int i = 0; i < codes.length; i++) {
            if (i > 0) {
                out.put((byte) ',');
            }
            out.put(JSON_VERDICTS[Verdict.ofCode(codes[i]).ordinal()]);
        }
        return out.put((byte) ']').put((byte) '}').toArray();
    }

    /** {@code {"released":[true,...]}} from release results (1 released, 0 not held by that owner). */
    public static byte[] releasesJson(byte[] released) {
        Out out = new Out(RELEASED_OPEN.length + released.length * 6 + 2);
        out.put(RELEASED_OPEN);
        for (int i = 0; i < released.length; i++) {
            if (i > 0) {
                out.put((byte) ',');
            }
            out.put(released[i] != 0 ? TRUE : FALSE);
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
