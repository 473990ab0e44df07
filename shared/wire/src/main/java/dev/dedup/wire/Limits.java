package dev.dedup.wire;

import java.util.regex.Pattern;

/** The fixed limits of the v1 contract, the range of event times, and namespace validation. */
public final class Limits {

    /** Longest id, in UTF-8 bytes (binary ids: bytes). */
    public static final int MAX_ID_BYTES = 512;
    /** Longest owner, in UTF-8 bytes. */
    public static final int MAX_OWNER_BYTES = 128;
    /** Longest namespace, in characters (ASCII only). */
    public static final int MAX_NAMESPACE_LENGTH = 64;
    /** The namespace of a request that names none. */
    public static final String DEFAULT_NAMESPACE = "default";
    /** The event second of an item sent without one. */
    public static final long NO_EVENT_TIME = 0;
    /** The largest event second, in epoch seconds: a u32 in the binary form. */
    public static final long MAX_EVENT_SECOND = 0xffff_ffffL;

    /** Longest stream name of the ranges endpoints, in UTF-8 bytes. */
    public static final int MAX_STREAM_BYTES = 256;
    /** Most decimal digits of a sequence number (Kinesis sequence numbers; Kafka offsets fit). */
    public static final int MAX_SEQUENCE_DIGITS = 129;

    private static final Pattern NAMESPACE = Pattern.compile("[A-Za-z0-9._-]{1,64}");

    private Limits() {}

    public static boolean isValidNamespace(String ns) {
        return ns != null && NAMESPACE.matcher(ns).matches();
    }

    /** Throws a 400 naming the field when {@code ns} is not a valid namespace. */
    public static String requireNamespace(String ns) {
        if (!isValidNamespace(ns)) {
            throw BatchRejectedException.bad(
                    "ns: " + describe(ns) + " is not a namespace (1 to 64 of A-Z a-z 0-9 . _ -)");
        }
        return ns;
    }

    /** Throws a 400 naming the field when {@code stream} is not 1 to 256 UTF-8 bytes. */
    public static String requireStream(String stream) {
        if (stream == null || stream.isEmpty()) {
            throw BatchRejectedException.bad("stream: " + (stream == null ? "missing" : "empty"));
        }
        int bytes = stream.getBytes(java.nio.charset.StandardCharsets.UTF_8).length;
        if (bytes > MAX_STREAM_BYTES) {
            throw BatchRejectedException.bad(
                    "stream: " + bytes + " bytes; at most " + MAX_STREAM_BYTES + " UTF-8 bytes");
        }
        return stream;
    }

    static String describe(String value) {
        if (value == null) {
            return "null";
        }
        if (value.isEmpty()) {
            return "empty";
        }
        String shown = value.length() > 80 ? value.substring(0, 80) + "..." : value;
        StringBuilder sb = new StringBuilder("'");
        shown.codePoints().forEach(cp -> {
            if (cp < 0x20 || cp == 0x7f || cp == '\'') {
                sb.append("\\x").append(Character.forDigit(cp >> 4, 16)).append(Character.forDigit(cp & 0xf, 16));
            } else {
                sb.appendCodePoint(cp);
            }
        });
        return sb.append('\'').toString();
    }
}
