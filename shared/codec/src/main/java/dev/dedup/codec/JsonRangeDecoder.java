package dev.dedup.codec;

import com.fasterxml.jackson.core.JsonParseException;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.exc.StreamConstraintsException;
import dev.dedup.wire.BatchRejectedException;
import dev.dedup.wire.Limits;
import dev.dedup.wire.SequenceRange;
import java.io.IOException;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.List;

/**
 * Decodes {@code {"ns": "orders", "stream": "shardId-000000000003", "ranges": [{"from": "...", "to": "..."}]}}.
 *
 * <p>Total, like {@link JsonBatchDecoder}: every byte sequence yields a {@link RangeRequest} or a
 * {@link BatchRejectedException} whose message names the place ({@code ranges[2].from: leading zero}).
 * Sequence numbers are JSON strings of unsigned decimal digits without leading zeros ({@code "0"}
 * allowed), at most {@value Limits#MAX_SEQUENCE_DIGITS} digits, {@code from <= to}. Unknown fields are
 * skipped; a repeated field or anything after the closing brace is rejected.
 */
public final class JsonRangeDecoder {

    private JsonRangeDecoder() {}

    /** Decodes a body of at most {@code maxRanges} ranges (more: 413). */
    public static RangeRequest decode(byte[] body, int maxRanges) {
        try (JsonParser p = JsonBatchDecoder.FACTORY.createParser(body)) {
            return decode(p, maxRanges);
        } catch (StreamConstraintsException e) {
            throw BatchRejectedException.bad("body: " + JsonBatchDecoder.firstLine(e.getOriginalMessage()));
        } catch (JsonParseException e) {
            throw BatchRejectedException.bad(
                    "body: malformed JSON at line " + e.getLocation().getLineNr()
                            + ", column " + e.getLocation().getColumnNr() + ": "
                            + JsonBatchDecoder.firstLine(e.getOriginalMessage()));
        } catch (IOException e) {
            throw BatchRejectedException.bad("body: unreadable JSON: " + JsonBatchDecoder.firstLine(e.getMessage()));
        }
    }

    private static RangeRequest decode(JsonParser p, int maxRanges) throws IOException {
        if (p.nextToken() != JsonToken.START_OBJECT) {
            throw BatchRejectedException.bad(
                    "body: expected a JSON object {\"ns\": ..., \"stream\": ..., \"ranges\": [...]}");
        }
        String ns = Limits.DEFAULT_NAMESPACE;
        String stream = null;
        List<SequenceRange> ranges = null;
        JsonToken t;
        while ((t = p.nextToken()) == JsonToken.FIELD_NAME) {
            String field = p.currentName();
            JsonToken value = p.nextToken();
            switch (field) {
                case "ns" -> ns = Limits.requireNamespace(JsonBatchDecoder.text(p, value, "ns"));
                case "stream" -> stream = Limits.requireStream(JsonBatchDecoder.text(p, value, "stream"));
                case "ranges" -> ranges = ranges(p, value, maxRanges);
                default -> p.skipChildren();
            }
        }
        if (t != JsonToken.END_OBJECT) {
            throw BatchRejectedException.bad("body: expected a field name or }, got " + JsonBatchDecoder.describe(t));
        }
        if (p.nextToken() != null) {
            throw BatchRejectedException.bad("body: unexpected data after the closing }");
        }
        if (stream == null) {
            throw BatchRejectedException.bad("stream: missing");
        }
        if (ranges == null) {
            throw BatchRejectedException.bad("ranges: missing");
        }
        return new RangeRequest(ns, stream, ranges);
    }

    private static List<SequenceRange> ranges(JsonParser p, JsonToken start, int maxRanges) throws IOException {
        if (start != JsonToken.START_ARRAY) {
            throw BatchRejectedException.bad("ranges: must be an array, got " + JsonBatchDecoder.describe(start));
        }
        List<SequenceRange> ranges = new ArrayList<>();
        JsonToken t;
        while ((t = p.nextToken()) != JsonToken.END_ARRAY) {
            int k = ranges.size();
            if (k == maxRanges) {
                throw new BatchRejectedException(
                        BatchRejectedException.Reason.TOO_LARGE,
                        "ranges: more than max-batch (" + maxRanges + ") ranges");
            }
            if (t != JsonToken.START_OBJECT) {
                throw BatchRejectedException.bad("ranges[" + k + "]: must be an object {\"from\": ..., \"to\": ...},"
                        + " got " + JsonBatchDecoder.describe(t));
            }
            BigInteger from = null;
            BigInteger to = null;
            while ((t = p.nextToken()) == JsonToken.FIELD_NAME) {
                String field = p.currentName();
                JsonToken value = p.nextToken();
                switch (field) {
                    case "from" -> from = sequence(p, value, "ranges[" + k + "].from");
                    case "to" -> to = sequence(p, value, "ranges[" + k + "].to");
                    default -> p.skipChildren();
                }
            }
            if (from == null || to == null) {
                throw BatchRejectedException.bad("ranges[" + k + "]." + (from == null ? "from" : "to") + ": missing");
            }
            if (from.compareTo(to) > 0) {
                throw BatchRejectedException.bad("ranges[" + k + "]: from " + from + " is after to " + to);
            }
            ranges.add(new SequenceRange(from, to));
        }
        return ranges;
    }

    /** An unsigned decimal string without leading zeros, of at most 129 digits. */
    private static BigInteger sequence(JsonParser p, JsonToken value, String where) throws IOException {
        if (value != JsonToken.VALUE_STRING) {
            throw BatchRejectedException.bad(
                    where + ": must be a string of decimal digits, got " + JsonBatchDecoder.describe(value));
        }
        String s = p.getText();
        if (s.isEmpty()) {
            throw BatchRejectedException.bad(where + ": empty");
        }
        if (s.length() > Limits.MAX_SEQUENCE_DIGITS) {
            throw BatchRejectedException.bad(
                    where + ": " + s.length() + " digits; at most " + Limits.MAX_SEQUENCE_DIGITS);
        }
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c < '0' || c > '9') {
                throw BatchRejectedException.bad(where + ": '" + (s.length() > 40 ? s.substring(0, 40) + "..." : s)
                        + "' is not an unsigned decimal number (character " + (i + 1) + ")");
            }
        }
        if (s.length() > 1 && s.charAt(0) == '0') {
            throw BatchRejectedException.bad(where + ": leading zero in '" + s + "'");
        }
        return new BigInteger(s);
    }
}
