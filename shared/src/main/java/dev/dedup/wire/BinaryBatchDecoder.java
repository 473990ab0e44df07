package dev.dedup.wire;

import java.nio.charset.StandardCharsets;

/**
 * Decodes {@code application/x-dedup-batch}: {@code u8 nsLength, ns bytes}, then items back to back,
 * each {@code u16 idLength, id bytes, u16 ownerLength, owner bytes} (big-endian lengths).
 *
 * <p>Total: every byte sequence yields a {@link Batch} or a {@link BatchRejectedException} naming the
 * item and field. A namespace length of 0 means the default namespace. Ids and owners are opaque
 * bytes (a 16-byte binary UUID is fine); the same bytes sent as a JSON string are the same id.
 */
public final class BinaryBatchDecoder {

    private BinaryBatchDecoder() {
    }

    public static Batch decode(byte[] body, int maxItems) {
        return decode(body, 0, body.length, maxItems);
    }

    public static Batch decode(byte[] body, int off, int len, int maxItems) {
        int end = off + len;
        if (len < 1) {
            throw BatchRejectedException.bad("body: empty; a binary batch starts with the namespace length byte");
        }
        int nsLen = body[off] & 0xff;
        int pos = off + 1;
        if (nsLen > end - pos) {
            throw BatchRejectedException.bad("ns: truncated: length byte says " + nsLen + " bytes, body has "
                    + (end - pos) + " after it");
        }
        String ns;
        if (nsLen == 0) {
            ns = Limits.DEFAULT_NAMESPACE;
        } else {
            ns = Limits.requireNamespace(new String(body, pos, nsLen, StandardCharsets.ISO_8859_1));
        }
        pos += nsLen;
        // 6 bytes is the smallest item: two lengths and one byte each.
        Batch.Builder builder = Batch.builder(Math.min(maxItems, (end - pos) / 6 + 1));
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
            builder.add(body, idOff, idLen, body, ownerOff, ownerLen);
            index++;
        }
        return builder.build(ns);
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
            throw BatchRejectedException.bad("items[" + index + "]." + field + ": " + len + " bytes, at most "
                    + max + " allowed");
        }
        if (len > end - pos - 2) {
            throw BatchRejectedException.bad("items[" + index + "]." + field + ": truncated: length says " + len
                    + " bytes, body has " + (end - pos - 2) + " left");
        }
        return len;
    }
}
