package dev.dedup.agent.http;

import dev.dedup.wire.BatchEncoder;
import dev.dedup.wire.Item;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;

/**
 * The requests {@link HttpFuzzIT} sends, as raw HTTP/1.1 bytes: a valid claim or release, then one {@link Kind}
 * of damage to its body, its headers or its framing. A request whose framing is broken (chunk sizes, lengths,
 * header and line limits, line endings, the request line, the version) leaves the server no way to tell where
 * it ends and the next one starts, so it must be rejected and its connection closed; such a request does not
 * ask for {@code Connection: close} itself, so that the server's closing can be seen.
 */
final class HttpMutations {

    static final int MAX_BATCH = 100;
    static final int MAX_BODY = 64 * 1024;

    private static final String[] TYPES = {
        "application/json",
        "application/x-dedup-batch",
        "text/plain",
        "",
        "APPLICATION/JSON",
        "application/json; charset=utf-8",
        "application/x-dedup-batch; v=2",
        "multipart/form-data; boundary=x",
        "application/x-dedup-verdicts",
        "application/octet-stream"
    };
    private static final String[] GARBAGE_LINES = {
        "\u0000\u0001\u0002",
        "POST  HTTP/1.1",
        "GARBAGE",
        "POST /v1/claims",
        "/v1/claims POST HTTP/1.1",
        "POST /v1/claims HTTP/1.1 extra",
        "P\u0000ST /v1/claims HTTP/1.1",
        "\u00ff\u00fe\u00fd",
        "POST /v1/claims HTTP/11",
        "POST /v1/claims HTTP/1.1\r\nX-Bad: \u0001\u007f"
    };
    private static final String[] BAD_VERSIONS = {
        "HTTP/2.5", "HTTP/9.9", "HTTP/1.2", "HTTP/2.0", "HTTP/0.9", "HTTP/3.0", "HTTPS/1.1"
    };
    private static final String[] NOT_HEX = {"zz", "x", "-1", "+1", "0x10", "", " ", "g0", "fffffffff"};
    private static final String[] NOT_CRLF = {"", "\n", "\r", "X", "\n\r"};

    /** What was done to the valid request; {@code weight} says how often, against the others' weights. */
    enum Kind {
        INTACT(4),
        FLIP(2),
        CUT(2),
        INSERT(2),
        CONTENT_TYPE(2),
        OVERSIZED_BODY(2),
        METHOD_OR_PATH(2),
        CHUNKED(2),
        LYING_LENGTH(2),
        FLIP_INSERT_AND_TYPE(2),
        GARBAGE_LINE(2, true),
        CHUNK_SIZE_NOT_HEX(1, true),
        CHUNK_DATA_UNTERMINATED(1, true),
        CHUNK_LONGER_THAN_DATA(1, true),
        LENGTH_NOT_A_NUMBER(1, true),
        LENGTH_NEGATIVE(1, true),
        LENGTH_CONFLICTING(1, true),
        HEADER_TOO_LARGE(1, true),
        URI_TOO_LONG(1, true),
        BARE_LF(1, true),
        SPACE_BEFORE_COLON(1, true),
        BAD_VERSION(1, true);

        private static final int TOTAL =
                Arrays.stream(values()).mapToInt(k -> k.weight).sum();

        final int weight;
        /** The server cannot know where this request ends: never a 2xx, and the connection must close. */
        final boolean breaksFraming;

        Kind(int weight) {
            this(weight, false);
        }

        Kind(int weight, boolean breaksFraming) {
            this.weight = weight;
            this.breaksFraming = breaksFraming;
        }

        static Kind pick(SplittableRandom random) {
            int at = random.nextInt(TOTAL);
            for (Kind kind : values()) {
                if ((at -= kind.weight) < 0) {
                    return kind;
                }
            }
            throw new AssertionError();
        }
    }

    /**
     * One request as sent, and what it was made from: {@code claims} when it is a POST to /v1/claims (its 200
     * answer claims), {@code intact} when its body holds exactly {@code original} (so a rejection must claim
     * nothing of it), {@code endsEarly} when it promises more bytes than it has: the client then closes its
     * sending side, and the server may close without an answer.
     */
    record Sent(Kind kind, byte[] bytes, boolean claims, boolean intact, boolean endsEarly, List<Item> original) {

        boolean breaksFraming() {
            return kind.breaksFraming;
        }
    }

    private HttpMutations() {}

    static Sent request(int r, SplittableRandom random) {
        List<Item> items = new ArrayList<>();
        int n = 1 + random.nextInt(random.nextInt(10) == 0 ? MAX_BATCH + 20 : 20);
        // A random token per request: a flipped byte turns an id into one no other request sends.
        String token = Long.toHexString(random.nextLong());
        for (int i = 0; i < n; i++) {
            items.add(new Item("f" + r + "-" + token + "-" + i, "o" + r));
        }
        boolean json = random.nextBoolean();
        byte[] body = json ? BatchEncoder.json("fz", items) : BatchEncoder.binary("fz", items);
        String type = json ? "application/json" : "application/x-dedup-batch";
        String method = "POST";
        String path = random.nextInt(5) == 0 ? "/v1/releases" : "/v1/claims";
        String query = "";
        String version = "HTTP/1.1";
        String requestLine = null;
        String length = null;
        Kind kind = Kind.pick(random);
        switch (kind) {
            case FLIP -> body = flip(body, random);
            case CUT -> body = Arrays.copyOf(body, random.nextInt(body.length + 1));
            case INSERT -> body = insert(body, random);
            case CONTENT_TYPE -> type = TYPES[random.nextInt(TYPES.length)];
            case OVERSIZED_BODY -> body = Arrays.copyOf(body, MAX_BODY + 1 + random.nextInt(4096));
            case METHOD_OR_PATH -> {
                method = new String[] {"GET", "PUT", "DELETE", "PATCH"}[random.nextInt(4)];
                path = new String[] {"/v1/claims", "/v1/claimz", "/", "/v1/claims/x", "/v1/stats"}[random.nextInt(5)];
            }
            case CHUNKED -> body = random.nextBoolean() ? flip(body, random) : body;
            case LYING_LENGTH -> length = String.valueOf(Math.max(0, body.length + random.nextInt(-body.length, 40)));
            case FLIP_INSERT_AND_TYPE -> {
                body = flip(insert(body, random), random);
                type = TYPES[random.nextInt(TYPES.length)];
            }
            case GARBAGE_LINE -> requestLine = GARBAGE_LINES[random.nextInt(GARBAGE_LINES.length)];
            case LENGTH_NOT_A_NUMBER ->
                length = new String[] {
                            "abc",
                            body.length + "abc",
                            "0x" + Integer.toHexString(body.length),
                            "",
                            "1e3",
                            "+" + body.length,
                            body.length + " " + body.length,
                            "99999999999999999999"
                        }
                        [random.nextInt(8)];
            case LENGTH_NEGATIVE -> length = "-" + (1 + random.nextInt(body.length + 1));
            case URI_TOO_LONG -> query = "?pad=" + "q".repeat(5 * 1024 + random.nextInt(1024));
            case BAD_VERSION -> version = BAD_VERSIONS[random.nextInt(BAD_VERSIONS.length)];
            default -> {} // intact, or damage done to the head below
        }
        boolean chunked = switch (kind) {
            case CHUNKED, CHUNK_SIZE_NOT_HEX, CHUNK_DATA_UNTERMINATED, CHUNK_LONGER_THAN_DATA -> true;
            default -> false;
        };

        List<String> lines = new ArrayList<>();
        lines.add(requestLine != null ? requestLine : method + " " + path + query + " " + version);
        lines.add("Host: 127.0.0.1");
        if (!kind.breaksFraming) {
            lines.add("Connection: close");
        }
        if (!type.isEmpty()) {
            lines.add("Content-Type: " + type);
        }
        if (kind == Kind.HEADER_TOO_LARGE) {
            lines.add(1 + random.nextInt(lines.size()), "X-Pad: " + "h".repeat(9 * 1024 + random.nextInt(1024)));
        }
        if (chunked) {
            lines.add("Transfer-Encoding: chunked");
        } else if (kind == Kind.LENGTH_CONFLICTING) {
            int other =
                    body.length + (random.nextBoolean() ? 1 + random.nextInt(40) : -1 - random.nextInt(body.length));
            int first = random.nextBoolean() ? body.length : other;
            if (random.nextBoolean()) {
                lines.add("Content-Length: " + first);
                lines.add("Content-Length: " + (body.length + other - first));
            } else {
                lines.add("Content-Length: " + first + ", " + (body.length + other - first));
            }
        } else {
            lines.add("Content-Length: " + (length != null ? length : body.length));
        }
        if (kind == Kind.SPACE_BEFORE_COLON) {
            int i = 1 + random.nextInt(lines.size() - 1);
            lines.set(i, lines.get(i).replaceFirst(":", " :"));
        }
        lines.add(""); // the blank line that ends the head
        // A bare LF ends one line of the head, or every one of them.
        int bareLf = kind == Kind.BARE_LF ? random.nextInt(lines.size() + 1) : -1;
        StringBuilder head = new StringBuilder(256);
        for (int i = 0; i < lines.size(); i++) {
            head.append(lines.get(i)).append(bareLf == i || bareLf == lines.size() ? "\n" : "\r\n");
        }

        ByteArrayOutputStream out = new ByteArrayOutputStream(body.length + head.length() + 256);
        out.writeBytes(head.toString().getBytes(StandardCharsets.ISO_8859_1));
        if (chunked) {
            writeChunks(out, body, kind, random);
        } else {
            out.writeBytes(body);
        }
        boolean claims = path.equals("/v1/claims") && method.equals("POST") && kind != Kind.GARBAGE_LINE;
        boolean endsEarly = kind == Kind.CHUNK_LONGER_THAN_DATA
                || kind == Kind.LYING_LENGTH && Integer.parseInt(length) > body.length;
        return new Sent(kind, out.toByteArray(), claims, kind != Kind.LYING_LENGTH, endsEarly, items);
    }

    /** The body in chunks of 1 to 700 bytes, one of them broken as {@code kind} says. */
    private static void writeChunks(ByteArrayOutputStream out, byte[] body, Kind kind, SplittableRandom random) {
        List<Integer> sizes = new ArrayList<>();
        for (int at = 0; at < body.length; ) {
            sizes.add(Math.min(body.length - at, 1 + random.nextInt(700)));
            at += sizes.get(sizes.size() - 1);
        }
        int broken = random.nextInt(sizes.size());
        int at = 0;
        for (int i = 0; i < sizes.size(); i++) {
            int size = sizes.get(i);
            String sizeLine = Integer.toHexString(size);
            if (i == broken && kind == Kind.CHUNK_SIZE_NOT_HEX) {
                sizeLine = NOT_HEX[random.nextInt(NOT_HEX.length)];
            } else if (i == broken && kind == Kind.CHUNK_LONGER_THAN_DATA) {
                sizeLine = Integer.toHexString(size + 1 + random.nextInt(4096));
            }
            ascii(out, sizeLine + "\r\n");
            out.write(body, at, size);
            at += size;
            if (i == broken && kind == Kind.CHUNK_LONGER_THAN_DATA) {
                return; // and the client closes its sending side
            }
            ascii(
                    out,
                    i == broken && kind == Kind.CHUNK_DATA_UNTERMINATED
                            ? NOT_CRLF[random.nextInt(NOT_CRLF.length)]
                            : "\r\n");
        }
        ascii(out, "0\r\n\r\n");
    }

    private static void ascii(ByteArrayOutputStream out, String s) {
        out.writeBytes(s.getBytes(StandardCharsets.US_ASCII));
    }

    private static byte[] flip(byte[] body, SplittableRandom random) {
        byte[] b = body.clone();
        for (int i = 0, n = 1 + random.nextInt(5); i < n && b.length > 0; i++) {
            b[random.nextInt(b.length)] ^= (byte) (1 << random.nextInt(8));
        }
        return b;
    }

    private static byte[] insert(byte[] body, SplittableRandom random) {
        int at = random.nextInt(body.length + 1);
        byte[] junk = new byte[1 + random.nextInt(8)];
        for (int i = 0; i < junk.length; i++) {
            junk[i] = (byte) random.nextInt(256);
        }
        byte[] b = new byte[body.length + junk.length];
        System.arraycopy(body, 0, b, 0, at);
        System.arraycopy(junk, 0, b, at, junk.length);
        System.arraycopy(body, at, b, at + junk.length, body.length - at);
        return b;
    }
}
