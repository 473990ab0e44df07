package dev.dedup.wire;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;

/** Writes request bodies in the contract's binary and JSON forms, for clients, tests and the load generator. */
public final class BatchEncoder {

    /**
     * The flag in a binary batch's namespace-length byte that says every item carries a u32 event second;
     * the namespace is then the byte's low 7 bits long.
     */
    public static final int EVENT_TIMES = 0x80;

    private BatchEncoder() {}

    /**
     * {@code application/x-dedup-batch}. Lengths are checked against what the format can carry: a namespace of up
     * to 127 bytes (the length byte's low 7 bits), fields of up to 65,535. The agent takes namespaces of 1 to 64 of
     * {@code A-Z a-z 0-9 . _ -} ({@link Limits#requireNamespace}), which the Java client checks before it encodes.
     * Event times are sent when the items carry them, which must then be all of them (the binary form has
     * them for every item or for none).
     */
    public static byte[] binary(String namespace, List<Item> items) {
        byte[] ns = namespace.getBytes(StandardCharsets.UTF_8);
        if (ns.length > 127) {
            throw new IllegalArgumentException("namespace longer than 127 bytes");
        }
        long timed = items.stream().filter(Item::hasEventTime).count();
        if (timed != 0 && timed != items.size()) {
            throw new IllegalArgumentException("a binary batch carries event times for every item or for none; " + timed
                    + " of " + items.size() + " items have one");
        }
        ByteArrayOutputStream out = new ByteArrayOutputStream(1 + items.size() * 48);
        out.write(ns.length | (timed > 0 ? EVENT_TIMES : 0));
        out.writeBytes(ns);
        for (Item item : items) {
            writeField(out, item.id().getBytes(StandardCharsets.UTF_8));
            writeField(out, item.owner().getBytes(StandardCharsets.UTF_8));
            if (timed > 0) {
                writeEventSecond(out, item.eventSecond());
            }
        }
        return out.toByteArray();
    }

    /** An item's event second in a binary batch whose namespace-length byte has the event-times flag. */
    public static void writeEventSecond(ByteArrayOutputStream out, long second) {
        out.write((int) (second >>> 24));
        out.write((int) (second >>> 16));
        out.write((int) (second >>> 8));
        out.write((int) second);
    }

    /** One item field of a binary batch: {@code u16 length, bytes}. */
    public static void writeField(ByteArrayOutputStream out, byte[] bytes) {
        if (bytes.length > 0xffff) {
            throw new IllegalArgumentException("field longer than 65535 bytes");
        }
        out.write(bytes.length >>> 8);
        out.write(bytes.length);
        out.writeBytes(bytes);
    }

    /** {@code application/json}. */
    public static byte[] json(String namespace, List<Item> items) {
        StringBuilder sb = new StringBuilder(32 + items.size() * 64);
        sb.append("{\"ns\":");
        quote(sb, namespace);
        sb.append(",\"items\":[");
        for (int i = 0; i < items.size(); i++) {
            if (i > 0) {
                sb.append(',');
            }
            sb.append("{\"id\":");
            quote(sb, items.get(i).id());
            sb.append(",\"owner\":");
            quote(sb, items.get(i).owner());
            if (items.get(i).hasEventTime()) {
                sb.append(",\"ts\":").append(items.get(i).eventSecond());
            }
            sb.append('}');
        }
        sb.append("]}");
        return sb.toString().getBytes(StandardCharsets.UTF_8);
    }

    /** The characters a JSON string escapes with a letter, and those letters; other controls take a hex escape. */
    private static final String NAMED = "\"\\\n\r\t";

    private static final String NAMES = "\"\\nrt";

    /** Appends {@code s} as a JSON string literal. */
    public static void quote(StringBuilder sb, String s) {
        sb.append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            int named = NAMED.indexOf(c);
            if (named >= 0) {
                sb.append('\\').append(NAMES.charAt(named));
            } else if (c < 0x20) {
                sb.append(String.format("\\u%04x", (int) c));
            } else {
                sb.append(c);
            }
        }
        sb.append('"');
    }
}
