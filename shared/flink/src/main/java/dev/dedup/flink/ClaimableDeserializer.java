package dev.dedup.flink;

import dev.dedup.client.Owners;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Objects;
import org.apache.flink.api.common.serialization.DeserializationSchema;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.connector.kafka.source.reader.deserializer.KafkaRecordDeserializationSchema;
import org.apache.flink.util.Collector;
import org.apache.flink.util.function.SerializableFunction;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.Header;

/**
 * The Kafka source's deserializer for {@link Dedup}: each record becomes a {@link Claimable} with its message id (a
 * header, {@value #DEFAULT_ID_HEADER} by default, or a function of the record), its owner {@code
 * topic:partition:offset} ({@link Owners#kafka}), its timestamp and the value the user's deserializer makes of its
 * bytes.
 *
 * <pre>{@code
 * KafkaSource<Claimable<String>> source = KafkaSource.<Claimable<String>>builder()
 *         .setBootstrapServers("kafka:9092")
 *         .setTopics("clicks")
 *         .setGroupId("clicks-dedup")
 *         .setDeserializer(ClaimableDeserializer.of(new SimpleStringSchema()).build())
 *         .build();
 * }</pre>
 *
 * <p>A record whose value the user's deserializer turns into {@code null} is skipped, as Flink's own value-only
 * deserializer does; a record without an id fails the job, naming the record.
 *
 * @param <T> the user's value type
 */
public final class ClaimableDeserializer<T> implements KafkaRecordDeserializationSchema<Claimable<T>> {

    private static final long serialVersionUID = 1L;

    /** The header the id is read from unless the builder says otherwise. */
    public static final String DEFAULT_ID_HEADER = "message-id";

    private final DeserializationSchema<T> values;
    private final String idHeader;
    private final SerializableFunction<ConsumerRecord<byte[], byte[]>, String> id;

    private ClaimableDeserializer(Builder<T> b) {
        this.values = b.values;
        this.idHeader = b.idHeader;
        this.id = b.id;
    }

    /** A builder whose values are what {@code values} makes of each record's value bytes. */
    public static <T> Builder<T> of(DeserializationSchema<T> values) {
        return new Builder<>(values);
    }

    @Override
    public void open(DeserializationSchema.InitializationContext context) throws Exception {
        values.open(context);
    }

    @Override
    public void deserialize(ConsumerRecord<byte[], byte[]> record, Collector<Claimable<T>> out) throws IOException {
        String owner = Owners.kafka(record.topic(), record.partition(), record.offset());
        T value = values.deserialize(record.value());
        if (value == null) {
            return;
        }
        long timestamp = record.timestamp() < 0 ? Claimable.NO_TIMESTAMP : record.timestamp();
        out.collect(new Claimable<>(idOf(record, owner), owner, timestamp, value));
    }

    private String idOf(ConsumerRecord<byte[], byte[]> record, String owner) {
        if (id != null) {
            String value = id.apply(record);
            if (value == null || value.isEmpty()) {
                throw new IllegalArgumentException("the record at " + owner + " has no id: the id function gave "
                        + (value == null ? "null" : "an empty string"));
            }
            return value;
        }
        Header h = record.headers().lastHeader(idHeader);
        if (h == null || h.value() == null || h.value().length == 0) {
            throw new IllegalArgumentException("the record at " + owner + " has no (or an empty) header " + idHeader
                    + ": its producer must set the message's id there, or the builder's id(...) must read it from"
                    + " the record");
        }
        return new String(h.value(), StandardCharsets.UTF_8);
    }

    /** A Flink POJO type of {@link Claimable} whose value field has the user's deserializer's type. */
    @Override
    @SuppressWarnings("unchecked")
    public TypeInformation<Claimable<T>> getProducedType() {
        return typeOf(values.getProducedType());
    }

    /** The POJO type of {@link Claimable} with values of type {@code value}. */
    @SuppressWarnings({"unchecked", "rawtypes"})
    public static <T> TypeInformation<Claimable<T>> typeOf(TypeInformation<T> value) {
        Objects.requireNonNull(value, "value");
        return (TypeInformation) Types.POJO(
                Claimable.class,
                Map.of("id", Types.STRING, "owner", Types.STRING, "timestamp", Types.LONG, "value", value));
    }

    /**
     * Settings of a {@link ClaimableDeserializer}; each is checked when set, naming the setting and the value.
     *
     * @param <T> the user's value type
     */
    public static final class Builder<T> {
        private final DeserializationSchema<T> values;
        private String idHeader = DEFAULT_ID_HEADER;
        private SerializableFunction<ConsumerRecord<byte[], byte[]>, String> id;

        private Builder(DeserializationSchema<T> values) {
            this.values = Objects.requireNonNull(values, "values");
        }

        /** The id is the record's last header of that name, as UTF-8 text; {@value #DEFAULT_ID_HEADER} by default. */
        public Builder<T> idFromHeader(String name) {
            if (name == null || name.isEmpty()) {
                throw new IllegalArgumentException("idFromHeader: a header name, got " + name);
            }
            this.idHeader = name;
            this.id = null;
            return this;
        }

        /** The id is what {@code id} makes of the record (a field of its value); never the record key. */
        public Builder<T> id(SerializableFunction<ConsumerRecord<byte[], byte[]>, String> id) {
            this.id = Objects.requireNonNull(id, "id");
            return this;
        }

        public ClaimableDeserializer<T> build() {
            return new ClaimableDeserializer<>(this);
        }
    }
}
