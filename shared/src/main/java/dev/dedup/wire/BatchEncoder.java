package dev.dedup.wire;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;

/** Writes request bodies in the contract's binary and JSON forms, for clients, tests and the load generator. */
public final class BatchEncoder {

    private BatchEncoder() {
    }

    /** {@code application/x-dedup-batch}. Lengths are checked so that a client fails before the agent would. */
    public static byte[] binary(String namespace, List<Item> items) {
        byte[] ns = namespace.getBytes(StandardCharsets.UTF_8);
        if (ns.length > 255) {
            throw new IllegalArgumentException("namespace longer than 255 bytes");
        }
        ByteArrayOutputStream out = new ByteArrayOutputStream(1 + items.size() * 48);
        out.write(ns.length);
        out.writeBytes(ns);
        for (Item item : items) {
            writeField(out, item.id().getBytes(StandardCharsets.UTF_8));
            writeField(out, item.owner().getBytes(StandardCharsets.UTF_8));
        }
        return out.toByteArray();
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
            sb.append('}');
        }
        sb.append("]}");
        return sb.toString().getBytes(StandardCharsets.UTF_8);
    }

    /** Appends {@code s} as a JSON string literal. */
    public static void quote(StringBuilder sb, String s) {
        sb.append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"' -> sb.append("\\\"");
                case '\\' -> sb.append("\\\\");
                case '\n' -> sb.append("\\n");
                case '\r' -> sb.append("\\r");
                case '\t' -> sb.append("\\t");
                default -> {
                    if (c < 0x20) {
                        sb.append(String.format("\\u%04x", (int) c));
                    } else {
                        sb.append(c);
                    }
                }
            }
        }
        sb.append('"');
    }
}
