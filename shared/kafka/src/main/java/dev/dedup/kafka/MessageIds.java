package dev.dedup.kafka;

import dev.dedup.client.Owners;
import java.nio.charset.StandardCharsets;
import java.util.Objects;
import java.util.function.Function;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.Header;

/**
 * Where a Kafka record carries its message id: a header the producer sets once per message (by default {@value
 * #DEFAULT_HEADER}), the same in every copy it or anyone else writes again.
 *
 * <p>Never the record key: in most topics it is a partitioning key (a user, a device), shared by every message of
 * that user, so claiming it would answer {@code DUPLICATE} for every second event of a key within the window. A
 * producer that puts the id in the payload instead gives the loops a function that reads that field.
 */
public final class MessageIds {

    /** The header name the examples and their producers use: {@value}. */
    public static final String DEFAULT_HEADER = "message-id";

    private MessageIds() {}

    /**
     * The value of the record's last header named {@code name}, as UTF-8 text (the last, as Kafka's {@code
     * lastHeader} and Python's {@code dict(record.headers)} take it).
     *
     * @throws IllegalArgumentException when the record has no such header, or an empty one, naming the header and
     *     the record's owner: it cannot be deduplicated, and skipping or guessing would be wrong
     */
    public static String header(ConsumerRecord<?, ?> record, String name) {
        Header h = record.headers().lastHeader(name);
        if (h == null || h.value() == null || h.value().length == 0) {
            throw new IllegalArgumentException("the record at "
                    + Owners.kafka(record.topic(), record.partition(), record.offset())
                    + (h == null ? " has no header " : " has an empty header ") + name
                    + ": its producer must set the message's id there");
        }
        return new String(h.value(), StandardCharsets.UTF_8);
    }

    /** {@link #header(ConsumerRecord, String)} as a function, for a loop's {@code id(...)}. */
    public static Function<ConsumerRecord<?, ?>, String> fromHeader(String name) {
        Objects.requireNonNull(name, "name");
        return r -> header(r, name);
    }
}
