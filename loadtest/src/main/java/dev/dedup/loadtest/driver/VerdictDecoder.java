package dev.dedup.loadtest.driver;

import dev.dedup.wire.Verdict;
import io.vertx.core.buffer.Buffer;

/** Reads the verdicts of a 200 answer, in either format, and checks there is one valid verdict per item. */
final class VerdictDecoder {

    private VerdictDecoder() {}

    /** {@code application/x-dedup-verdicts}: one byte per item. */
    static byte[] binary(Buffer body, int items) {
        if (body.length() != items) {
            throw RequestFailure.badResponse(body.length() + " verdict bytes for " + items + " items");
        }
        byte[] codes = body.getBytes();
        for (int i = 0; i < codes.length; i++) {
            if (codes[i] < 0 || codes[i] > Verdict.DUPLICATE.code()) {
                throw RequestFailure.badResponse("verdicts[" + i + "]: byte " + codes[i]);
            }
        }
        return codes;
    }

    /**
     * {@code {"verdicts": ["new", ...]}}. A small scanner rather than a JSON library: the answer's shape is
     * fixed, and at a million verdicts a second the generator should not spend its CPU building trees.
     */
    static byte[] json(Buffer body, int items) {
        String text = body.toString();
        int key = text.indexOf("\"verdicts\"");
        int open = key < 0 ? -1 : text.indexOf('[', key);
        if (open < 0) {
            throw RequestFailure.badResponse("no verdicts array in " + abbreviate(text));
        }
        byte[] codes = new byte[items];
        int n = 0;
        int at = open + 1;
        while (true) {
            at = skipSpace(text, at);
            if (at >= text.length()) {
                throw RequestFailure.badResponse("verdicts array not closed");
            }
            char c = text.charAt(at);
            if (c == ']') {
                break;
            }
            if (c == ',' && n > 0) {
                at = skipSpace(text, at + 1);
            }
            if (at >= text.length() || text.charAt(at) != '"') {
                throw RequestFailure.badResponse("verdicts[" + n + "]: not a string");
            }
            int close = text.indexOf('"', at + 1);
            if (close < 0) {
                throw RequestFailure.badResponse("verdicts[" + n + "]: string not closed");
            }
            if (n == items) {
                throw RequestFailure.badResponse("more verdicts than the " + items + " items");
            }
            codes[n] = code(text.substring(at + 1, close), n);
            n++;
            at = close + 1;
        }
        if (n != items) {
            throw RequestFailure.badResponse(n + " verdicts for " + items + " items");
        }
        return codes;
    }

    private static byte code(String name, int index) {
        return switch (name) {
            case "new" -> Verdict.NEW.code();
            case "retry" -> Verdict.RETRY.code();
            case "duplicate" -> Verdict.DUPLICATE.code();
            default -> throw RequestFailure.badResponse("verdicts[" + index + "]: '" + abbreviate(name) + "'");
        };
    }

    private static int skipSpace(String s, int at) {
        while (at < s.length() && Character.isWhitespace(s.charAt(at))) {
            at++;
        }
        return at;
    }

    private static String abbreviate(String s) {
        return s.length() > 80 ? s.substring(0, 80) + "..." : s;
    }
}
