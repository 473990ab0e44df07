package dev.dedup.codec;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParseException;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.core.exc.StreamConstraintsException;
import dev.dedup.wire.BatchRejectedException;
import dev.dedup.wire.Limits;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CharsetEncoder;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;

/**
 * Decodes {@code {"ns": "clicks", "items": [{"id": "...", "owner": "..."}]}} with a streaming parser,
 * so that a batch of 10,000 items builds no tree and every error names its place.
 *
 * <p>Total: every byte sequence yields a {@link Batch} or a {@link BatchRejectedException}. Unknown
 * fields are skipped (later versions may add some); a repeated field, a value of the wrong type, a
 * string that is not valid Unicode, or anything after the closing brace is rejected.
 */
public final class JsonBatchDecoder {

    static final JsonFactory FACTORY = JsonFactory.builder()
            .enable(com.fasterxml.jackson.core.StreamReadFeature.STRICT_DUPLICATE_DETECTION)
            .streamReadConstraints(
                    StreamReadConstraints.builder().maxNestingDepth(64).build())
            .build();

    private static final ThreadLocal<CharsetEncoder> UTF8 = ThreadLocal.withInitial(() -> StandardCharsets.UTF_8
            .newEncoder()
            .onMalformedInput(CodingErrorAction.REPORT)
            .onUnmappableCharacter(CodingErrorAction.REPORT));

    private JsonBatchDecoder() {}

    public static Batch decode(byte[] body, int maxItems) {
        return decode(body, 0, body.length, maxItems);
    }

    public static Batch decode(byte[] body, int off, int len, int maxItems) {
        try (JsonParser p = FACTORY.createParser(body, off, len)) {
            return decode(p, maxItems);
        } catch (StreamConstraintsException e) {
            throw BatchRejectedException.bad("body: " + firstLine(e.getOriginalMessage()));
        } catch (JsonParseException e) {
            throw BatchRejectedException.bad(
                    "body: malformed JSON at line " + e.getLocation().getLineNr() + ", column "
                            + e.getLocation().getColumnNr() + ": " + firstLine(e.getOriginalMessage()));
        } catch (IOException e) {
            throw BatchRejectedException.bad("body: unreadable JSON: " + firstLine(e.getMessage()));
        }
    }

    private static Batch decode(JsonParser p, int maxItems) throws IOException {
        if (p.nextToken() != JsonToken.START_OBJECT) {
            throw BatchRejectedException.bad("body: expected a JSON object {\"ns\": ..., \"items\": [...]}");
        }
        String ns = Limits.DEFAULT_NAMESPACE;
        Batch.Builder items = null;
        JsonToken t;
        while ((t = p.nextToken()) == JsonToken.FIELD_NAME) {
            String field = p.currentName();
            JsonToken value = p.nextToken();
            switch (field) {
                case "ns" -> ns = Limits.requireNamespace(text(p, value, "ns"));
                case "items" -> items = items(p, value, maxItems);
                default -> p.skipChildren();
            }
        }
        if (t != JsonToken.END_OBJECT) {
            throw BatchRejectedException.bad("body: malformed JSON object");
        }
        if (p.nextToken() != null) {
            throw BatchRejectedException.bad("body: unexpected data after the JSON object");
        }
        if (items == null) {
            throw BatchRejectedException.bad("items: missing");
        }
        return items.build(ns);
    }

    private static Batch.Builder items(JsonParser p, JsonToken start, int maxItems) throws IOException {
        if (start != JsonToken.START_ARRAY) {
            throw BatchRejectedException.bad("items: must be an array, got " + describe(start));
        }
        Batch.Builder builder = Batch.builder(64);
        int index = 0;
        JsonToken t;
        while ((t = p.nextToken()) != JsonToken.END_ARRAY) {
            if (index >= maxItems) {
                throw BatchRejectedException.tooMany(maxItems);
            }
            if (t != JsonToken.START_OBJECT) {
                throw BatchRejectedException.bad("items[" + index
                        + "]: must be an object {\"id\": ..., \"owner\": ...}, " + "got " + describe(t));
            }
            byte[] id = null;
            byte[] owner = null;
            long ts = Batch.NO_EVENT_TIME;
            while ((t = p.nextToken()) == JsonToken.FIELD_NAME) {
                String field = p.currentName();
                JsonToken value = p.nextToken();
                switch (field) {
                    case "id" -> id = utf8(p, value, index, "id", Limits.MAX_ID_BYTES);
                    case "owner" -> owner = utf8(p, value, index, "owner", Limits.MAX_OWNER_BYTES);
                    case "ts" -> ts = eventSecond(p, value, index);
                    default -> p.skipChildren();
                }
            }
            if (id == null) {
                throw BatchRejectedException.bad("items[" + index + "].id: missing");
            }
            if (owner == null) {
                throw BatchRejectedException.bad("items[" + index + "].owner: missing");
            }
            builder.add(id, 0, id.length, owner, 0, owner.length, ts);
            index++;
        }
        return builder;
    }

    /** {@code "ts"}: the message's event time, whole epoch seconds from 1 to 2^32 - 1. */
    private static long eventSecond(JsonParser p, JsonToken value, int index) throws IOException {
        String where = "items[" + index + "].ts";
        if (value != JsonToken.VALUE_NUMBER_INT) {
            throw BatchRejectedException.bad(where + ": must be whole epoch seconds, got "
                    + (value == JsonToken.VALUE_NUMBER_FLOAT ? "a fraction" : describe(value)));
        }
        if (p.getNumberType() == JsonParser.NumberType.BIG_INTEGER) {
            throw BatchRejectedException.bad(
                    where + ": " + p.getText() + " is not epoch seconds (1 to " + Batch.MAX_EVENT_SECOND + ")");
        }
        long second = p.getLongValue();
        if (second < 1 || second > Batch.MAX_EVENT_SECOND) {
            throw BatchRejectedException.bad(where + ": " + second + " is not epoch seconds (1 to "
                    + Batch.MAX_EVENT_SECOND + ")" + (second > Batch.MAX_EVENT_SECOND ? "; milliseconds?" : ""));
        }
        return second;
    }

    private static byte[] utf8(JsonParser p, JsonToken value, int index, String field, int maxBytes)
            throws IOException {
        String where = "items[" + index + "]." + field;
        String text = text(p, value, where);
        if (text.isEmpty()) {
            throw BatchRejectedException.bad(where + ": empty");
        }
        if (text.length() > maxBytes) { // a UTF-16 char is at least one UTF-8 byte
            throw BatchRejectedException.bad(where + ": longer than " + maxBytes + " UTF-8 bytes");
        }
        ByteBuffer encoded;
        try {
            encoded = UTF8.get().reset().encode(CharBuffer.wrap(text));
        } catch (CharacterCodingException e) {
            // An unpaired surrogate: two such ids would otherwise collapse into one.
            throw BatchRejectedException.bad(where + ": not valid Unicode (unpaired surrogate)");
        }
        if (encoded.remaining() > maxBytes) {
            throw BatchRejectedException.bad(
                    where + ": " + encoded.remaining() + " UTF-8 bytes, at most " + maxBytes + " allowed");
        }
        byte[] bytes = new byte[encoded.remaining()];
        encoded.get(bytes);
        return bytes;
    }

    /** The string value at {@code where}; a value of another type is rejected, naming {@code where}. */
    static String text(JsonParser p, JsonToken value, String where) throws IOException {
        if (value != JsonToken.VALUE_STRING) {
            throw BatchRejectedException.bad(where + ": must be a string, got " + describe(value));
        }
        return p.getText();
    }

    static String describe(JsonToken t) {
        if (t == null) {
            return "end of input";
        }
        return switch (t) {
            case START_OBJECT -> "an object";
            case START_ARRAY -> "an array";
            case VALUE_STRING -> "a string";
            case VALUE_NUMBER_INT, VALUE_NUMBER_FLOAT -> "a number";
            case VALUE_TRUE, VALUE_FALSE -> "a boolean";
            case VALUE_NULL -> "null";
            default -> t.asString() == null ? t.name() : t.asString();
        };
    }

    static String firstLine(String message) {
        if (message == null) {
            return "";
        }
        int nl = message.indexOf('\n');
        return nl < 0 ? message : message.substring(0, nl);
    }
}
