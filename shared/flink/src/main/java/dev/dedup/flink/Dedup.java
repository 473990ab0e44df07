package dev.dedup.flink;

import dev.dedup.client.Claims;
import java.io.Serializable;
import java.time.Duration;
import java.util.Objects;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeutils.CompositeType;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.datastream.SingleOutputStreamOperator;
import org.apache.flink.util.function.SerializableSupplier;

/**
 * Deduplication in a Flink DataStream job: the first copy of each message goes on, the other copies (at other
 * offsets, in other topics, read by other jobs, applications or consumers of the same namespace) are dropped.
 *
 * <pre>{@code
 * Dedup<String> dedup = Dedup.<String>builder(() -> Claims.fromEnvironment("clicks")).build();
 * DataStream<String> unique = dedup.apply(env.fromSource(source, WatermarkStrategy.noWatermarks(), "clicks"))
 *         .uid("dedup");
 * }</pre>
 *
 * <p>The input is the stream of {@link Claimable}s a Kafka source with a {@link ClaimableDeserializer} makes; each
 * is claimed with its message id, its owner and its timestamp in seconds as event time. The operator holds records
 * in memory and claims them together (one call) when it holds a chunk, every {@link Builder#flushEvery flush
 * interval}, before a watermark, at the end of input and before every checkpoint barrier; the values answered {@code
 * NEW} or {@code RETRY} go on in their order with their timestamps. As nothing is held when a barrier passes, a
 * checkpoint never covers a record the operator has not forwarded: a job restored from it reads the records after it
 * again and claims them again, and as their owners are the same, the ones claimed before the failure answer {@code
 * RETRY} and go on. With a transactional sink (Flink's {@code KafkaSink} with {@code DeliveryGuarantee.EXACTLY_ONCE})
 * the output holds each message once.
 *
 * @param <T> the values' type
 */
public final class Dedup<T> implements Serializable {

    private static final long serialVersionUID = 1L;

    /** What the operator did, for metrics and tests; called on the task's thread, serialized with the job. */
    public interface Listener extends Serializable {
        /** A listener that does nothing. */
        Listener NONE = new Listener() {
            private static final long serialVersionUID = 1L;
        };

        /** After each claim of the buffer: how many records were answered each verdict. */
        default void claimed(int fresh, int retried, int duplicates) {}
    }

    private final SerializableSupplier<Claims> claims;
    private final boolean eventTime;
    private final int chunk;
    private final Duration flushEvery;
    private final Listener listener;

    private Dedup(Builder<T> b) {
        this.claims = b.claims;
        this.eventTime = b.eventTime;
        this.chunk = b.chunk;
        this.flushEvery = b.flushEvery;
        this.listener = b.listener;
    }

    /**
     * A builder claiming with what {@code claims} makes in each parallel instance (e.g. {@code () ->
     * Claims.fromEnvironment("clicks")}: the agent of the task manager's {@code DEDUP_URL}, in namespace {@code
     * clicks}); a supplier because a {@link Claims} holds an HTTP client, which is not shipped with the job.
     */
    public static <T> Builder<T> builder(SerializableSupplier<Claims> claims) {
        return new Builder<>(claims);
    }

    /**
     * The values of {@code claimables} that are not duplicates, through the deduplicating operator (named {@code
     * dedup}; give it a {@code uid} as any stateful step). The values' type is read from the input's, as {@link
     * ClaimableDeserializer} gives it.
     *
     * @throws IllegalArgumentException when the input's type does not say the values' type: use {@link
     *     #apply(DataStream, TypeInformation)}
     */
    public SingleOutputStreamOperator<T> apply(DataStream<Claimable<T>> claimables) {
        TypeInformation<Claimable<T>> type = claimables.getType();
        if (!(type instanceof CompositeType) || ((CompositeType<?>) type).getFieldIndex("value") < 0) {
            throw new IllegalArgumentException("the input's type " + type + " does not say the values' type: give"
                    + " the Kafka source a ClaimableDeserializer, or call apply(stream, valueType)");
        }
        @SuppressWarnings("unchecked")
        TypeInformation<T> value = (TypeInformation<T>) ((CompositeType<?>) type).getTypeAt("value");
        return apply(claimables, value);
    }

    /** The values of {@code claimables} that are not duplicates, of type {@code valueType}. */
    public SingleOutputStreamOperator<T> apply(DataStream<Claimable<T>> claimables, TypeInformation<T> valueType) {
        Objects.requireNonNull(valueType, "valueType");
        return claimables.transform("dedup", valueType, new DedupOperator<>(this));
    }

    Claims newClaims() {
        return Objects.requireNonNull(claims.get(), "the claims supplier gave null");
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

    Listener listener() {
        return listener;
    }

    /**
     * Settings of a {@link Dedup}; each is checked when set, naming the setting and the value.
     *
     * @param <T> the values' type
     */
    public static final class Builder<T> {
        private final SerializableSupplier<Claims> claims;
        private boolean eventTime = true;
        private int chunk = 1000;
        private Duration flushEvery = Duration.ofMillis(100);
        private Listener listener = Listener.NONE;

        private Builder(SerializableSupplier<Claims> claims) {
            this.claims = Objects.requireNonNull(claims, "claims");
        }

        /**
         * Whether to send the record's timestamp as its event time (true by default): the agent then counts each
         * claim's window from it, so that a job that falls behind, or replays, keeps its claims.
         */
        public Builder<T> eventTime(boolean send) {
            this.eventTime = send;
            return this;
        }

        /** Records claimed in one call at most, 1,000 by default (the agent takes up to its --max-batch). */
        public Builder<T> chunk(int records) {
            if (records < 1 || records > 100_000) {
                throw new IllegalArgumentException("chunk: 1 to 100,000 records, got " + records);
            }
            this.chunk = records;
            return this;
        }

        /** How long a record waits in the buffer at most before it is claimed, 100 ms by default. */
        public Builder<T> flushEvery(Duration every) {
            if (every == null || every.isNegative() || every.isZero()) {
                throw new IllegalArgumentException("flushEvery: must be positive, got " + every);
            }
            this.flushEvery = every;
            return this;
        }

        public Builder<T> listener(Listener listener) {
            this.listener = Objects.requireNonNull(listener, "listener");
            return this;
        }

        public Dedup<T> build() {
            return new Dedup<>(this);
        }
    }
}
