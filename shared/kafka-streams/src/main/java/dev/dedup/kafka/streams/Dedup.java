package dev.dedup.kafka.streams;

import dev.dedup.client.Claims;
import dev.dedup.client.Owners;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Collections;
import java.util.Objects;
import java.util.Set;
import java.util.function.Function;
import java.util.regex.Pattern;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorSupplier;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.processor.api.RecordMetadata;
import org.apache.kafka.streams.state.StoreBuilder;
import org.apache.kafka.streams.state.Stores;

/**
 * Deduplication in a Kafka Streams topology: the first copy of each message goes on, the other copies (at other
 * offsets, in other topics, read by other applications, jobs or consumers of the same namespace) are dropped.
 *
 * <pre>{@code
 * Dedup<String, byte[]> dedup = Dedup.builder(Claims.fromEnvironment("clicks"), Serdes.String(), Serdes.ByteArray())
 *         .idFromHeader("message-id") // never the record key
 *         .build();
 * builder.stream("clicks", Consumed.with(Serdes.String(), Serdes.ByteArray()))
 *         .process(dedup) // right after the source: the owner is the record's topic, partition and offset
 *         .to("clicks-unique", Produced.with(Serdes.String(), Serdes.ByteArray()));
 * }</pre>
 *
 * <p>Each record is claimed with its message id, its owner {@code topic:partition:offset} ({@link Owners#kafka}) and
 * its timestamp in seconds as event time. Records wait in a changelogged buffer (a state store of this supplier,
 * {@link #stores()}), claimed together when a chunk is full or every {@link Builder#flushEvery flush interval}; the
 * ones answered {@code NEW} or {@code RETRY} are forwarded in their order. With {@code processing.guarantee=
 * exactly_once_v2} the buffer, the output and the input offsets commit in one transaction, so a record is forwarded
 * once whatever instance dies when; a task restored elsewhere claims its buffered records again, and as the owner is
 * the same they answer {@code RETRY} and go on.
 *
 * @param <K> the records' key type
 * @param <V> the records' value type
 */
public final class Dedup<K, V> implements ProcessorSupplier<K, V, K, V> {

    /** The header the id is read from unless the builder says otherwise. */
    public static final String DEFAULT_ID_HEADER = "message-id";

    private static final Pattern STORE = Pattern.compile("[A-Za-z0-9._-]{1,200}");

    /** What the processor did, for metrics and tests; called on the stream thread. */
    public interface Listener {
        /** A listener that does nothing. */
        Listener NONE = new Listener() {};

        /** After each claim of the buffer: how many records were answered each verdict. */
        default void claimed(int fresh, int retried, int duplicates) {}
    }

    private final Claims claims;
    private final Serde<K> keySerde;
    private final Serde<V> valueSerde;
    private final String idHeader;
    private final Function<Record<K, V>, String> id;
    private final boolean eventTime;
    private final int chunk;
    private final Duration flushEvery;
    private final String storeName;
    private final Listener listener;

    private Dedup(Builder<K, V> b) {
        this.claims = b.claims;
        this.keySerde = b.keySerde;
        this.valueSerde = b.valueSerde;
        this.idHeader = b.idHeader;
        this.id = b.id;
        this.eventTime = b.eventTime;
        this.chunk = b.chunk;
        this.flushEvery = b.flushEvery;
        this.storeName = b.storeName;
        this.listener = b.listener;
    }

    /**
     * A builder claiming with {@code claims} (e.g. {@code Claims.fromEnvironment("clicks")}: the agent of {@code
     * DEDUP_URL}, in namespace {@code clicks}); the serdes are the stream's, for the buffer.
     */
    public static <K, V> Builder<K, V> builder(Claims claims, Serde<K> keySerde, Serde<V> valueSerde) {
        return new Builder<>(claims, keySerde, valueSerde);
    }

    @Override
    public Processor<K, V, K, V> get() {
        return new DedupProcessor<>(this);
    }

    /** The buffer: an in-memory store, changelogged, that {@code KStream.process} adds to the topology. */
    @Override
    public Set<StoreBuilder<?>> stores() {
        return Collections.singleton(Stores.keyValueStoreBuilder(
                Stores.inMemoryKeyValueStore(storeName), Serdes.Long(), Serdes.ByteArray()));
    }

    String idOf(Record<K, V> record, RecordMetadata source) {
        if (id != null) {
            String value = id.apply(record);
            if (value == null || value.isEmpty()) {
                throw new IllegalArgumentException("the record at "
                        + Owners.kafka(source.topic(), source.partition(), source.offset())
                        + " has no id: the id function gave " + (value == null ? "null" : "an empty string"));
            }
            return value;
        }
        Header h = record.headers().lastHeader(idHeader);
        if (h == null || h.value() == null || h.value().length == 0) {
            throw new IllegalArgumentException("the record at "
                    + Owners.kafka(source.topic(), source.partition(), source.offset())
                    + " has no (or an empty) header "
                    + idHeader + ": its producer must set the message's id there, or the builder's id(...) must read"
                    + " it from the record");
        }
        return new String(h.value(), StandardCharsets.UTF_8);
    }

    Claims claims() {
        return claims;
    }

    Serde<K> keySerde() {
        return keySerde;
    }

    Serde<V> valueSerde() {
        return valueSerde;
    }

    boolean eventTime() {
        return eventTime;
    }

    int chunk() {
        return chunk;
    }

    Duration flushEvery() {
        return flushEvery;
    }

    String storeName() {
        return storeName;
    }

    Listener listener() {
        return listener;
    }

    /**
     * Settings of a {@link Dedup}; each is checked when set, naming the setting and the value.
     *
     * @param <K> the records' key type
     * @param <V> the records' value type
     */
    public static final class Builder<K, V> {
        private final Claims claims;
        private final Serde<K> keySerde;
        private final Serde<V> valueSerde;
        private String idHeader = DEFAULT_ID_HEADER;
        private Function<Record<K, V>, String> id;
        private boolean eventTime = true;
        private int chunk = 1000;
        private Duration flushEvery = Duration.ofMillis(100);
        private String storeName = "dedup-buffer";
        private Listener listener = Listener.NONE;

        private Builder(Claims claims, Serde<K> keySerde, Serde<V> valueSerde) {
            this.claims = Objects.requireNonNull(claims, "claims");
            this.keySerde = Objects.requireNonNull(keySerde, "keySerde");
            this.valueSerde = Objects.requireNonNull(valueSerde, "valueSerde");
        }

        /** The id is the record's last header of that name, as UTF-8 text; {@value #DEFAULT_ID_HEADER} by default. */
        public Builder<K, V> idFromHeader(String name) {
            if (name == null || name.isEmpty()) {
                throw new IllegalArgumentException("idFromHeader: a header name, got " + name);
            }
            this.idHeader = name;
            this.id = null;
            return this;
        }

        /** The id is what {@code id} makes of the record (a field of its value); never the record key. */
        public Builder<K, V> id(Function<Record<K, V>, String> id) {
            this.id = Objects.requireNonNull(id, "id");
            return this;
        }

        /**
         * Whether to send the record's timestamp as its event time (true by default): the agent then counts each
         * claim's window from it, so that an application that falls behind keeps its claims.
         */
        public Builder<K, V> eventTime(boolean send) {
            this.eventTime = send;
            return this;
        }

        /** Records claimed in one call at most, 1,000 by default (the agent takes up to its --max-batch). */
        public Builder<K, V> chunk(int records) {
            if (records < 1 || records > 100_000) {
                throw new IllegalArgumentException("chunk: 1 to 100,000 records, got " + records);
            }
            this.chunk = records;
            return this;
        }

        /** How long a record waits in the buffer at most before it is claimed, 100 ms by default. */
        public Builder<K, V> flushEvery(Duration every) {
            this.flushEvery = DedupProcessor.positive("flushEvery", every);
            return this;
        }

        /** The buffer's store name, {@code dedup-buffer} by default; two of these in one topology need two names. */
        public Builder<K, V> storeName(String name) {
            if (name == null || !STORE.matcher(name).matches()) {
                throw new IllegalArgumentException("storeName: 1 to 200 of A-Z a-z 0-9 . _ -, got " + name);
            }
            this.storeName = name;
            return this;
        }

        public Builder<K, V> listener(Listener listener) {
            this.listener = Objects.requireNonNull(listener, "listener");
            return this;
        }

        public Dedup<K, V> build() {
            return new Dedup<>(this);
        }
    }
}
