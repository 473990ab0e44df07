package dev.dedup.loadtest.direct;

import dev.dedup.loadtest.workload.BatchEncoding;
import dev.dedup.loadtest.workload.Message;
import java.nio.ByteBuffer;
import java.util.List;

/**
 * The messages of a batch as a Tapjoy worker holds them: per message a 16-byte binary UUID, an 8-byte owner
 * (2-byte partition, 6-byte offset) and the 4-byte second stamped in the message. What the worker does with
 * them (bucketing, grouping, the script calls) is timed; this is not.
 */
public final class TapjoyEncoding implements BatchEncoding {

    /** Bytes per message. */
    static final int MESSAGE_BYTES = 16 + 8 + 4;

    @Override
    public byte[] encode(String namespace, List<Message> messages) {
        ByteBuffer out = ByteBuffer.allocate(messages.size() * MESSAGE_BYTES);
        for (Message m : messages) {
            putUuid(out, m.id());
            putOwner(out, m.owner());
            out.putInt(m.eventSecond());
        }
        return out.array();
    }

    @Override
    public String cliName() {
        return "direct";
    }

    /** {@code 8-4-4-4-12} hex digits to 16 bytes. */
    static void putUuid(ByteBuffer out, String uuid) {
        if (uuid.length() != 36) {
            throw new IllegalArgumentException("not a UUID: " + uuid);
        }
        long hi = 0;
        long lo = 0;
        int digits = 0;
        for (int i = 0; i < uuid.length(); i++) {
            char c = uuid.charAt(i);
            if (c == '-') {
                continue;
            }
            int d = Character.digit(c, 16);
            if (d < 0) {
                throw new IllegalArgumentException("not a UUID: " + uuid);
            }
            if (digits < 16) {
                hi = hi << 4 | d;
            } else {
                lo = lo << 4 | d;
            }
            digits++;
        }
        out.putLong(hi).putLong(lo);
    }

    /** {@code p<partition>:<offset>} to a 2-byte partition and a 6-byte offset. */
    static void putOwner(ByteBuffer out, String owner) {
        int colon = owner.indexOf(':');
        if (!owner.startsWith("p") || colon < 2) {
            throw new IllegalArgumentException("not an owner p<partition>:<offset>: " + owner);
        }
        int partition = Integer.parseInt(owner, 1, colon, 10);
        long offset = Long.parseLong(owner, colon + 1, owner.length(), 10);
        if (partition > 0xFFFF || offset >>> 48 != 0) {
            throw new IllegalArgumentException("owner out of range for 2 + 6 bytes: " + owner);
        }
        out.putShort((short) partition);
        out.putShort((short) (offset >>> 32));
        out.putInt((int) offset);
    }
}
