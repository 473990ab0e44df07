package dev.dedup.examples.sink;

import dev.dedup.client.Owners;
import dev.dedup.kafka.MessageIds;
import java.nio.charset.StandardCharsets;
import org.apache.kafka.clients.consumer.ConsumerRecord;

/**
 * One message of the examples' stream as read from Kafka: the producer's transaction id (its {@code message-id}
 * header; the record key is a partitioning key, not an id), what
 * happened ({@code app}, {@code amount}) and when ({@code eventMillis}, the event's own time, the same in every
 * copy), and where this copy sits ({@code topic}, {@code partition}, {@code offset}). The value is the UTF-8 text
 * {@code app,eventMillis,amount}.
 */
public record Event(String id, String app, long eventMillis, long amount, String topic, int partition, long offset) {

    public static Event parse(String id, byte[] value, String topic, int partition, long offset) {
        String[] f = new String(value, StandardCharsets.UTF_8).split(",", 3);
        return new Event(id, f[0], Long.parseLong(f[1]), Long.parseLong(f[2]), topic, partition, offset);
    }

    /** The event a record of the examples' topics holds, its id from the {@code message-id} header. */
    public static Event of(ConsumerRecord<String, byte[]> r) {
        return parse(MessageIds.header(r, MessageIds.DEFAULT_HEADER), r.value(), r.topic(), r.partition(), r.offset());
    }

    public static String value(String app, long eventMillis, long amount) {
        return app + "," + eventMillis + "," + amount;
    }

    /** The owner of this copy: {@code topic:partition:offset} ({@link Owners#kafka}). */
    public String owner() {
        return Owners.kafka(topic, partition, offset);
    }

    /** The minute of the event's own time, the aggregates' key. */
    public long minuteMillis() {
        return eventMillis - Math.floorMod(eventMillis, 60_000L);
    }
}
