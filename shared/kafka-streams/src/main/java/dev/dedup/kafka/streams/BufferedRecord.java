package dev.dedup.kafka.streams;

import dev.dedup.wire.Item;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.streams.processor.api.Record;

/**
 * A record as the buffer keeps it: its key and value through the topology's serdes, its timestamp and headers, and
 * the claim it makes (id, owner, event second). Version 1 of the format:
 * {@code u8 1, id, owner, i64 second (-1: none), i64 timestamp, bytes key, bytes value, u16 headers, (key, bytes)*};
 * strings are modified UTF-8, bytes a {@code i32} length ({@code -1}: null) and the bytes.
 */
final class BufferedRecord<K, V> {

    private static final int VERSION = 1;

    private final Record<K, V> record;
    private final Item item;

    private BufferedRecord(Record<K, V> record, Item item) {
        this.record = record;
        this.item = item;
    }

    Record<K, V> record() {
        return record;
    }

    Item item() {
        return item;
    }

    static <K, V> byte[] encode(Dedup<K, V> settings, Record<K, V> r, String id, String owner, long second) {
        try {
            ByteArrayOutputStream bytes = new ByteArrayOutputStream(256);
            DataOutputStream out = new DataOutputStream(bytes);
            out.writeByte(VERSION);
            out.writeUTF(id);
            out.writeUTF(owner);
            out.writeLong(second);
            out.writeLong(r.timestamp());
            writeBytes(out, settings.keySerde().serializer().serialize(settings.storeName(), r.key()));
            writeBytes(out, settings.valueSerde().serializer().serialize(settings.storeName(), r.value()));
            Header[] headers = r.headers().toArray();
            out.writeShort(headers.length);
            for (Header h : headers) {
                out.writeUTF(h.key());
                writeBytes(out, h.value());
            }
            out.flush();
            return bytes.toByteArray();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static <K, V> BufferedRecord<K, V> decode(Dedup<K, V> settings, byte[] stored) {
        try {
            DataInputStream in = new DataInputStream(new ByteArrayInputStream(stored));
            int version = in.readUnsignedByte();
            if (version != VERSION) {
                throw new IllegalStateException("a buffered record of format " + version + " in store "
                        + settings.storeName() + ": this version reads " + VERSION);
            }
            String id = in.readUTF();
            String owner = in.readUTF();
            long second = in.readLong();
            long timestamp = in.readLong();
            K key = settings.keySerde().deserializer().deserialize(settings.storeName(), readBytes(in));
            V value = settings.valueSerde().deserializer().deserialize(settings.storeName(), readBytes(in));
            int n = in.readUnsignedShort();
            RecordHeaders headers = new RecordHeaders();
            for (int i = 0; i < n; i++) {
                headers.add(in.readUTF(), readBytes(in));
            }
            Item item = second < 0 ? new Item(id, owner) : new Item(id, owner, second);
            return new BufferedRecord<>(new Record<>(key, value, timestamp, headers), item);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static void writeBytes(DataOutputStream out, byte[] b) throws IOException {
        if (b == null) {
            out.writeInt(-1);
        } else {
            out.writeInt(b.length);
            out.write(b);
        }
    }

    private static byte[] readBytes(DataInputStream in) throws IOException {
        int n = in.readInt();
        if (n < 0) {
            return null;
        }
        byte[] b = new byte[n];
        in.readFully(b);
        return b;
    }
}
