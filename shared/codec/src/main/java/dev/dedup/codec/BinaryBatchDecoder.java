package dev.dedup.codec;

import dev.dedup.wire.BatchEncoder;
import dev.dedup.wire.BatchRejectedException;
import dev.dedup.wire.Limits;
import java.nio.charset.StandardCharsets;

/**
 * Decodes {@code application/x-dedup-batch}: {@code u8 nsLength, ns bytes}, then items back to back,
 * each {@code u16 idLength, id bytes, u16 ownerLength, owner bytes} (big-endian lengths). When the
 * length byte has its top bit set ({@link BatchEncoder#EVENT_TIMES}), the namespace is its low 7 bits
 * long and every item is followed by {@code u32 eventSecond} (epoch seconds, at least 1): namespaces are
 * at most 64 bytes, so no v1 body had that bit set.
 *
 * <p>Total: every byte sequence yields a {@link Batch} or a {@link BatchRejectedException} naming the
 * item and field. A namespace length of 0 means the default namespace. Ids and owners are opaque
 * bytes (a 16-byte binary UUID is fine); the same bytes sent as a JSON string are the same id.
 */
public final class BinaryBatchDecoder {

    private BinaryBatchDecoder() {}

    public static Batch decode(byte[] body, int maxItems) {
        return decode(body, 0, body.length, maxItems);
    }

    public static Batch decode(byte[] body, int off, int len, int maxItems) {
        int end = off + len;
        if (len < 1) {
            throw BatchRejectedException.bad("body: empty; a binary batch starts with the namespace length byte");
        }
        int head = body[off] & 0xff;
        boolean timed = (head & BatchEncoder.EVENT_TIMES) != 0;
        int nsLen = head & ~BatchEncoder.EVENT_TIMES;
        int pos = off + 1;
        if (nsLen > end - pos) {
            throw BatchRejectedException.bad(
                    "ns: truncated: length byte says " + nsLen + " bytes, body has " + (end - pos) + " after it");
        }
        String ns;
        if (nsLen == 0) {
            ns = Limits.DEFAULT_NAMESPACE;
        } else {
            ns = Limits.requireNamespace(new String(body, pos, nsLen, StandardCharsets.ISO_8859_1));
        }
        pos += nsLen;
        // 6 bytes is the smallest item: two lengths and one byte each (10 with an event second).
        Batch.Builder builder = Batch.builder(Math.min(maxItems, (end - pos) / (timed ? 10 : 6) + 1));
        int index = 0;
        while (pos < end) {
            if (index >= maxItems) {
                throw BatchRejectedException.tooMany(maxItems);
            }
            int idLen = length(body, off, pos, end, index, "id", Limits.MAX_ID_BYTES);
            int idOff = pos + 2;
            pos = idOff + idLen;
            int ownerLen = length(body, off, pos, end, index, "owner", Limits.MAX_OWNER_BYTES);
            int ownerOff = pos + 2;
            pos = ownerOff + ownerLen;
            if (timed) {
                long second = eventSecond(body, off, pos, end, index);
                pos += 4;
                builder.add(body, idOff, idLen, body, ownerOff, ownerLen, second);
            } else {
                builder.add(body, idOff, idLen, body, ownerOff, ownerLen);
            }
            index++;
        }
        return builder.build(ns);
    }

    private static long eventSecond(byte[] body, int off, int pos, int end, int index) {
        if (end - pos < 4) {
            throw BatchRejectedException.bad(
                    "items[" + index + "].ts: truncated: body ends before the 4-byte event " + "second (offset "
                            + (pos - off) + "); the namespace-length byte's top bit says every item has one");
        }
        long second = ((long) (body[pos] & 0xff) << 24)
                | ((body[pos + 1] & 0xff) << 16)
                | ((body[pos + 2] & 0xff) << 8)
                | (body[pos + 3] & 0xff);
        if (second == 0) {
            throw BatchRejectedException.bad("items[" + index + "].ts: 0; event times are epoch seconds from 1");
        }
        return second;
    }

    /**
     * Reads and checks the u16 length of a field at {@code pos}, and that its bytes follow. Offsets in
     * messages count from the start of the body ({@code off}), not of the array.
     */
    private static int length(byte[] body, int off, int pos, int end, int index, String field, int max) {
        if (end - pos < 2) {
            throw BatchRejectedException.bad("items[" + index + "]." + field + ": truncated: body ends before its "
                    + "2-byte length (offset " + (pos - off) + ")");
        }
        int len = ((body[pos] & 0xff) << 8) | (body[pos + 1] & 0xff);
        if (len == 0) {
            throw BatchRejectedException.bad("items[" + index + "]." + field + ": empty");
        }
        if (len > max) {
            throw BatchRejectedException.bad(
                    "items[" + index + "]." + field + ": " + len + " bytes, at most " + max + " allowed");
        }
        if (len > end - pos - 2) {
            throw BatchRejectedException.bad("items[" + index + "]." + field + ": truncated: length says " + len
                    + " bytes, body has " + (end - pos - 2) + " left");
        }
        return len;
    }
}
