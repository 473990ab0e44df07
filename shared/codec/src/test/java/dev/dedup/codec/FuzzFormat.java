package dev.dedup.codec;

import dev.dedup.wire.BatchEncoder;
import dev.dedup.wire.Item;
import dev.dedup.wire.Limits;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;

/**
 * The two wire formats as {@link DecoderFuzzTest} sees them: a generator of random valid bodies, with and
 * without event times, mutations that know the format (length fields and event seconds set to extremes,
 * the event-times flag flipped; stray JSON tokens, deep nesting, bad UTF-8), the decoder under test, and the
 * other format's decoder to compare fingerprints with.
 */
abstract class FuzzFormat {

    static final int MAX_ITEMS = 10_000;

    /**
     * A valid body and what was put in it ({@code textIds}: ids and owners are valid Unicode strings; each
     * item's event second, if it has one, is in {@code items}); {@code lengthFields} and {@code secondFields}
     * are the offsets of the binary form's length fields and event seconds.
     */
    record Generated(
            byte[] body, String ns, List<Item> items, boolean textIds, int[] lengthFields, int[] secondFields) {

        /** Whether the other format can carry the same items: binary has event times for all or none. */
        boolean expressibleInBinary() {
            long timed = items.stream().filter(Item::hasEventTime).count();
            return timed == 0 || timed == items.size();
        }
    }

    final String name;

    FuzzFormat(String name) {
        this.name = name;
    }

    abstract Generated generate(SplittableRandom r);

    /** A mutation that knows the format; {@code null} to fall back to a byte-level one. */
    abstract byte[] mutateFormat(Generated g, byte[] body, SplittableRandom r);

    abstract Batch decode(byte[] body, int maxItems);

    /** The same items decoded from the other format, to compare fingerprints with. */
    abstract Batch decodeOther(String ns, List<Item> items);

    static byte[] insert(byte[] in, int at, byte[] bytes) {
        byte[] out = new byte[in.length + bytes.length];
        System.arraycopy(in, 0, out, 0, at);
        System.arraycopy(bytes, 0, out, at, bytes.length);
        System.arraycopy(in, at, out, at + bytes.length, in.length - at);
        return out;
    }

    static byte[] concat(byte[] a, byte[] b) {
        byte[] out = Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, out, a.length, b.length);
        return out;
    }

    private static final String NS_ALPHABET = "ABCXYZabcxyz0123456789._-";
    private static final int[] MULTIBYTE = {
        0xe9, 0xfc, 0x3b1, 0x416, 0x5d0, 0x20ac, 0x4e00, 0x30c6, 0xfeff, 0xfffd, 0x1f600, 0x1f4a9, 0x10348, 0x10ffff
    };

    /** A namespace, or {@code null} for one the body leaves out. */
    private static String namespace(SplittableRandom r) {
        return switch (r.nextInt(8)) {
            case 0, 1 -> null;
            case 2 -> "default";
            case 3 -> "n".repeat(64);
            default -> {
                StringBuilder sb = new StringBuilder();
                for (int n = 1 + r.nextInt(12); n > 0; n--) {
                    sb.append(NS_ALPHABET.charAt(r.nextInt(NS_ALPHABET.length())));
                }
                yield sb.toString();
            }
        };
    }

    /** Whether a generated body carries event times: one in three. */
    private static boolean timed(SplittableRandom r) {
        return r.nextInt(3) == 0;
    }

    /** A valid event second, often at an edge of the u32 range or around today. */
    private static long eventSecond(SplittableRandom r) {
        return switch (r.nextInt(8)) {
            case 0 -> 1;
            case 1 -> Batch.MAX_EVENT_SECOND;
            case 2 -> 0x8000_0000L; // the top bit, read unsigned
            case 3 -> 0xff + r.nextInt(2); // a byte carried into the next
            case 4 -> r.nextLong(1, Batch.MAX_EVENT_SECOND + 1);
            default -> 1_767_225_600L + r.nextInt(86_400);
        };
    }

    private static int itemCount(SplittableRandom r) {
        return switch (r.nextInt(10)) {
            case 0 -> 0;
            case 1 -> r.nextInt(4) == 0 ? 20 + r.nextInt(60) : 1 + r.nextInt(8);
            default -> 1 + r.nextInt(8);
        };
    }

    /** A valid id or owner of at most {@code maxBytes} UTF-8 bytes, sometimes exactly that many. */
    private static String text(SplittableRandom r, int maxBytes) {
        int kind = r.nextInt(8);
        if (kind == 0) {
            return new java.util.UUID(r.nextLong(), r.nextLong()).toString();
        }
        if (kind == 1) {
            return r.nextInt(64) + ":" + r.nextLong(1L << 40);
        }
        int target = switch (r.nextInt(64)) {
            case 0 -> maxBytes;
            case 1 -> maxBytes - r.nextInt(4);
            default -> 1 + r.nextInt(16);
        };
        StringBuilder sb = new StringBuilder();
        int bytes = 0;
        while (bytes < target) {
            int cp = switch (kind) {
                case 2 -> 'a' + r.nextInt(26);
                case 3 -> 0x20 + r.nextInt(0x5f); // printable ASCII, with '"' and '\'
                case 4 -> r.nextInt(0x20); // control characters, escaped in JSON
                case 5 -> MULTIBYTE[r.nextInt(MULTIBYTE.length)];
                default -> r.nextInt(4) == 0 ? MULTIBYTE[r.nextInt(MULTIBYTE.length)] : 0x20 + r.nextInt(0x5f);
            };
            int len = cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
            if (bytes + len > target) {
                if (sb.length() == 0) {
                    cp = 'x';
                    len = 1;
                } else {
                    break;
                }
            }
            sb.appendCodePoint(cp);
            bytes += len;
        }
        return sb.toString();
    }

    /** Items with an event second each when {@code timed} (a copy usually carries its original's). */
    private static List<Item> textItems(SplittableRandom r, boolean timed) {
        int n = itemCount(r);
        List<Item> items = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            if (i > 0 && r.nextInt(6) == 0) { // a repeated id: must still decode, in order
                Item earlier = items.get(r.nextInt(i));
                long second = !timed ? Batch.NO_EVENT_TIME : r.nextInt(4) != 0 ? earlier.eventSecond() : eventSecond(r);
                items.add(new Item(
                        earlier.id(), r.nextBoolean() ? earlier.owner() : text(r, Limits.MAX_OWNER_BYTES), second));
            } else {
                items.add(new Item(
                        text(r, Limits.MAX_ID_BYTES),
                        text(r, Limits.MAX_OWNER_BYTES),
                        timed ? eventSecond(r) : Batch.NO_EVENT_TIME));
            }
        }
        return items;
    }

    static final class Binary extends FuzzFormat {
        Binary() {
            super("binary");
        }

        @Override
        Generated generate(SplittableRandom r) {
            String ns = namespace(r);
            boolean textIds = r.nextInt(4) != 0;
            boolean timed = timed(r);
            List<Item> items = textIds ? textItems(r, timed) : List.of();
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            List<Integer> lengths = new ArrayList<>();
            List<Integer> seconds = new ArrayList<>();
            byte[] nsBytes = ns == null ? new byte[0] : ns.getBytes(StandardCharsets.US_ASCII);
            lengths.add(0);
            out.write(nsBytes.length | (timed ? BatchEncoder.EVENT_TIMES : 0));
            out.writeBytes(nsBytes);
            int opaque = textIds ? 0 : itemCount(r);
            List<Item> placeholders = new ArrayList<>();
            for (int i = 0; i < items.size() + opaque; i++) {
                byte[] id;
                byte[] owner;
                long second;
                if (textIds) {
                    id = items.get(i).id().getBytes(StandardCharsets.UTF_8);
                    owner = items.get(i).owner().getBytes(StandardCharsets.UTF_8);
                    second = items.get(i).eventSecond();
                } else { // opaque bytes, e.g. a binary UUID: valid here, not expressible in JSON
                    id = new byte[r.nextInt(10) == 0 ? Limits.MAX_ID_BYTES : 1 + r.nextInt(20)];
                    owner = new byte[1 + r.nextInt(Limits.MAX_OWNER_BYTES)];
                    r.nextBytes(id);
                    r.nextBytes(owner);
                    second = timed ? eventSecond(r) : Batch.NO_EVENT_TIME;
                    placeholders.add(new Item("", "", second));
                }
                lengths.add(out.size());
                BatchEncoder.writeField(out, id);
                lengths.add(out.size());
                BatchEncoder.writeField(out, owner);
                if (timed) {
                    seconds.add(out.size());
                    BatchEncoder.writeEventSecond(out, second);
                }
            }
            return new Generated(
                    out.toByteArray(),
                    ns == null ? Limits.DEFAULT_NAMESPACE : ns,
                    textIds ? items : placeholders,
                    textIds,
                    lengths.stream().mapToInt(Integer::intValue).toArray(),
                    seconds.stream().mapToInt(Integer::intValue).toArray());
        }

        @Override
        byte[] mutateFormat(Generated g, byte[] body, SplittableRandom r) {
            int[] seconds = g.secondFields();
            if (seconds.length > 0 && r.nextInt(3) == 0) { // an event second
                int at = seconds[r.nextInt(seconds.length)];
                if (at + 4 > body.length) {
                    return null;
                }
                long[] extremes = {0, 1, 0xff, 0x100, 0x8000_0000L, Batch.MAX_EVENT_SECOND, r.nextLong(1L << 32)};
                long second = extremes[r.nextInt(extremes.length)];
                byte[] out = body.clone();
                for (int b = 0; b < 4; b++) {
                    out[at + b] = (byte) (second >>> (24 - 8 * b));
                }
                return out;
            }
            int[] fields = g.lengthFields();
            int at = fields[r.nextInt(fields.length)];
            if (at + 2 > body.length) {
                return null;
            }
            byte[] out = body.clone();
            if (at == 0) { // the namespace length byte, with or without the event-times flag
                int flag = BatchEncoder.EVENT_TIMES;
                int[] extremes = {
                    0,
                    1,
                    64,
                    65,
                    255,
                    r.nextInt(256),
                    flag,
                    flag | 1,
                    flag | 64,
                    flag | 65,
                    flag | 127,
                    (body[0] & 0xff) ^ flag
                };
                out[0] = (byte) extremes[r.nextInt(extremes.length)];
            } else {
                int[] extremes = {0, 1, 2, 0xffff, 0x8000, 128, 129, 512, 513, r.nextInt(0x10000)};
                int len = extremes[r.nextInt(extremes.length)];
                out[at] = (byte) (len >>> 8);
                out[at + 1] = (byte) len;
            }
            return out;
        }

        @Override
        Batch decode(byte[] body, int maxItems) {
            return BinaryBatchDecoder.decode(body, maxItems);
        }

        @Override
        Batch decodeOther(String ns, List<Item> items) {
            return JsonBatchDecoder.decode(BatchEncoder.json(ns, items), MAX_ITEMS);
        }
    }

    static final class Json extends FuzzFormat {
        private static final String[] TOKENS = {
            "{",
            "}",
            "[",
            "]",
            "\"",
            ":",
            ",",
            "\\",
            "\\u",
            "\\ud800",
            "\\udc00",
            "\\u12",
            "null",
            "true",
            "false",
            "0",
            "-",
            "-0.5e-3",
            "1e999999",
            "0x1f",
            "NaN",
            "123456789012345678901234567890",
            "\"items\"",
            "\"id\"",
            "\"owner\"",
            "\"ns\"",
            "\"items\":[",
            "{\"id\":\"a\",\"owner\":\"o\"}",
            "\"ns\":\"t\",",
            "/*",
            "//",
            "'",
            "\u0000",
            "\t",
            "\n",
            "\ufeff",
            "\u20ac",
            "\ud83d\ude00",
            "\"ts\"",
            ",\"ts\":1",
            "\"ts\":0,",
            "4294967295",
            "4294967296",
            "1767225600000",
            "9223372036854775808",
            "-1",
            "1.5",
            "{\"id\":\"a\",\"owner\":\"o\",\"ts\":1}"
        };

        Json() {
            super("json");
        }

        @Override
        Generated generate(SplittableRandom r) {
            String ns = namespace(r);
            boolean timed = timed(r);
            List<Item> items = textItems(r, timed);
            if (timed && r.nextInt(8) == 0) { // JSON may leave out some items' event times
                items = items.stream()
                        .map(i -> r.nextBoolean() ? i : new Item(i.id(), i.owner()))
                        .toList();
            }
            StringBuilder sb = new StringBuilder("{");
            ws(sb, r);
            boolean nsFirst = r.nextBoolean();
            boolean comma = false;
            if (r.nextInt(4) == 0) {
                comma = field(sb, r, "v", junk(r, 3), false);
            }
            if (ns != null && nsFirst) {
                comma = field(sb, r, "ns", quote(ns, r), comma);
            }
            if (comma) {
                sb.append(',');
                ws(sb, r);
            }
            quoteKey(sb, "items", r);
            sb.append(':');
            ws(sb, r);
            sb.append('[');
            for (int i = 0; i < items.size(); i++) {
                if (i > 0) {
                    sb.append(',');
                }
                ws(sb, r);
                sb.append('{');
                boolean c = false;
                if (r.nextInt(12) == 0) {
                    c = field(sb, r, "trace", junk(r, 3), false);
                }
                Item item = items.get(i);
                int tsAt = item.hasEventTime() ? r.nextInt(3) : -1; // before, between or after id and owner
                if (tsAt == 0) {
                    c = field(sb, r, "ts", Long.toString(item.eventSecond()), c);
                }
                if (r.nextBoolean()) {
                    c = field(sb, r, "id", quote(item.id(), r), c);
                    c = tsAt == 1 ? field(sb, r, "ts", Long.toString(item.eventSecond()), c) : c;
                    c = field(sb, r, "owner", quote(item.owner(), r), c);
                } else {
                    c = field(sb, r, "owner", quote(item.owner(), r), c);
                    c = tsAt == 1 ? field(sb, r, "ts", Long.toString(item.eventSecond()), c) : c;
                    c = field(sb, r, "id", quote(item.id(), r), c);
                }
                if (tsAt == 2) {
                    field(sb, r, "ts", Long.toString(item.eventSecond()), c);
                }
                sb.append('}');
            }
            ws(sb, r);
            sb.append(']');
            comma = true;
            if (ns != null && !nsFirst) {
                comma = field(sb, r, "ns", quote(ns, r), comma);
            }
            if (r.nextInt(4) == 0) {
                field(sb, r, "extra", junk(r, 4), comma);
            }
            ws(sb, r);
            sb.append('}');
            ws(sb, r);
            return new Generated(
                    sb.toString().getBytes(StandardCharsets.UTF_8),
                    ns == null ? Limits.DEFAULT_NAMESPACE : ns,
                    items,
                    true,
                    new int[0],
                    new int[0]);
        }

        private static boolean field(StringBuilder sb, SplittableRandom r, String name, String value, boolean comma) {
            if (comma) {
                sb.append(',');
                ws(sb, r);
            }
            quoteKey(sb, name, r);
            ws(sb, r);
            sb.append(':');
            ws(sb, r);
            sb.append(value);
            ws(sb, r);
            return true;
        }

        private static void quoteKey(StringBuilder sb, String key, SplittableRandom r) {
            sb.append(r.nextInt(10) == 0 ? quote(key, r) : "\"" + key + "\"");
        }

        private static void ws(StringBuilder sb, SplittableRandom r) {
            if (r.nextInt(4) == 0) {
                sb.append(" \n\t\r".charAt(r.nextInt(4)));
            }
        }

        /** A JSON string literal of {@code s}, escaping some characters that need no escape. */
        private static String quote(String s, SplittableRandom r) {
            StringBuilder sb = new StringBuilder("\"");
            int escapeOneIn = r.nextInt(8) == 0 ? 2 : 40;
            for (int i = 0; i < s.length(); i++) {
                char c = s.charAt(i);
                if (Character.isHighSurrogate(c)) { // a pair is escaped as two escapes, or not at all
                    char low = s.charAt(++i);
                    if (r.nextInt(escapeOneIn) == 0) {
                        escape(sb, c, false);
                        escape(sb, low, true);
                    } else {
                        sb.append(c).append(low);
                    }
                } else if (c == '"' || c == '\\' || c < 0x20 || r.nextInt(escapeOneIn) == 0) {
                    switch (r.nextInt(3)) {
                        case 0 -> escape(sb, c, false);
                        case 1 -> escape(sb, c, true);
                        default ->
                            sb.append(
                                    switch (c) {
                                        case '"' -> "\\\"";
                                        case '\\' -> "\\\\";
                                        case '/' -> "\\/";
                                        case '\b' -> "\\b";
                                        case '\f' -> "\\f";
                                        case '\n' -> "\\n";
                                        case '\r' -> "\\r";
                                        case '\t' -> "\\t";
                                        default -> escape(new StringBuilder(), c, false);
                                    });
                    }
                } else {
                    sb.append(c);
                }
            }
            return sb.append('"').toString();
        }

        /** Appends {@code \\uXXXX}, in lower or upper case hex. */
        private static StringBuilder escape(StringBuilder sb, char c, boolean upper) {
            String digits = upper ? "0123456789ABCDEF" : "0123456789abcdef";
            return sb.append("\\u")
                    .append(digits.charAt(c >>> 12))
                    .append(digits.charAt((c >>> 8) & 0xf))
                    .append(digits.charAt((c >>> 4) & 0xf))
                    .append(digits.charAt(c & 0xf));
        }

        /** A valid JSON value for an unknown field. */
        private static String junk(SplittableRandom r, int depth) {
            switch (depth <= 0 ? r.nextInt(4) : r.nextInt(6)) {
                case 0:
                    return Long.toString(r.nextLong());
                case 1:
                    return r.nextBoolean() ? "null" : "-1.25e-7";
                case 2:
                    return quote(text(r, 16), r);
                case 3:
                    return r.nextBoolean() ? "true" : "\"}]\"";
                case 4: {
                    StringBuilder sb = new StringBuilder("[");
                    for (int n = r.nextInt(3); n > 0; n--) {
                        sb.append(junk(r, depth - 1)).append(n > 1 ? "," : "");
                    }
                    return sb.append(']').toString();
                }
                default: {
                    StringBuilder sb = new StringBuilder("{");
                    String[] names = {"id", "owner", "items", "ns", "x"};
                    int n = r.nextInt(3);
                    for (int k = 0; k < n; k++) {
                        sb.append('"')
                                .append(names[k])
                                .append("\":")
                                .append(junk(r, depth - 1))
                                .append(k < n - 1 ? "," : "");
                    }
                    return sb.append('}').toString();
                }
            }
        }

        @Override
        byte[] mutateFormat(Generated g, byte[] body, SplittableRandom r) {
            int at = r.nextInt(body.length + 1);
            return switch (r.nextInt(4)) {
                case 0 -> { // deep nesting
                    String open = r.nextBoolean() ? "[" : "{\"a\":";
                    yield insert(
                            body,
                            at,
                            open.repeat(r.nextInt(64) == 0 ? 10_000 : 1 + r.nextInt(80))
                                    .getBytes(StandardCharsets.UTF_8));
                }
                case 1 -> { // invalid or unusual UTF-8
                    byte[][] seqs = {
                        {(byte) 0xff},
                        {(byte) 0xc0, (byte) 0x80},
                        {(byte) 0xed, (byte) 0xa0, (byte) 0x80},
                        {(byte) 0xf4, (byte) 0x90, (byte) 0x80, (byte) 0x80},
                        {(byte) 0xe2, (byte) 0x82},
                        {(byte) 0xef, (byte) 0xbb, (byte) 0xbf},
                        {(byte) 0xfe, (byte) 0xff},
                        {0, 0, 0}
                    };
                    yield insert(body, at, seqs[r.nextInt(seqs.length)]);
                }
                default -> { // stray tokens
                    StringBuilder sb = new StringBuilder();
                    for (int n = 1 + r.nextInt(3); n > 0; n--) {
                        sb.append(TOKENS[r.nextInt(TOKENS.length)]);
                    }
                    yield insert(body, at, sb.toString().getBytes(StandardCharsets.UTF_8));
                }
            };
        }

        @Override
        Batch decode(byte[] body, int maxItems) {
            return JsonBatchDecoder.decode(body, maxItems);
        }

        @Override
        Batch decodeOther(String ns, List<Item> items) {
            return BinaryBatchDecoder.decode(BatchEncoder.binary(ns, items), MAX_ITEMS);
        }
    }
}
