package dev.dedup.kafka;

import dev.dedup.client.Claims;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import java.util.function.Function;
import org.apache.kafka.clients.consumer.ConsumerRecord;

/**
 * The settings both loops' builders share ({@link DedupingConsumer.Builder}, {@link DedupingShareConsumer.Builder}):
 * public so that a user reads the methods those builders inherit where they are declared, not constructible outside
 * this package. Values are collected as given and checked once, in {@code build()}, naming the setting.
 *
 * @param <K> the records' key type
 * @param <V> the records' value type
 * @param <S> the sink's type
 * @param <L> the listener's type
 * @param <B> the builder's own type, which every setter returns
 */
public abstract class LoopBuilder<K, V, S, L, B extends LoopBuilder<K, V, S, L, B>> {

    private final String loop;
    private final Object consumer;
    private final Claims claims;
    private List<String> topics;
    private Function<? super ConsumerRecord<K, V>, String> idOf;
    private String idHeader;
    private String idGiven;
    private boolean eventTime = true;
    S sink;
    L listener;
    private Duration pollTimeout = LoopSettings.DEFAULT_POLL_TIMEOUT;
    private Duration failureBackoff = LoopSettings.DEFAULT_FAILURE_BACKOFF;

    LoopBuilder(String loop, Object consumer, Claims claims, L noListener) {
        this.loop = loop;
        this.consumer = consumer;
        this.claims = claims;
        this.listener = noListener;
    }

    @SuppressWarnings("unchecked")
    private B self() {
        return (B) this;
    }

    /** The topics to subscribe to; at least one. */
    public B topics(String... topics) {
        this.topics = topics == null ? null : Arrays.asList(topics);
        return self();
    }

    /** The topics to subscribe to; at least one. */
    public B topics(Collection<String> topics) {
        this.topics = topics == null ? null : new ArrayList<>(topics);
        return self();
    }

    /** Each record's message id is the UTF-8 value of its header {@code name} ({@link MessageIds#header}). */
    public B idFromHeader(String name) {
        this.idHeader = name;
        this.idOf = null;
        this.idGiven = "idFromHeader";
        return self();
    }

    /**
     * Each record's message id, where its producer put it (e.g. a field of the value); never the record key, which
     * most topics share between many messages ({@link MessageIds}).
     */
    public B id(Function<? super ConsumerRecord<K, V>, String> idOf) {
        this.idOf = idOf;
        this.idHeader = null;
        this.idGiven = "id";
        return self();
    }

    /**
     * Whether to send the record's timestamp (whole seconds) as the message's event time; true by default. The
     * agent then counts each claim's window from that time on the namespace's event clock (the newest event time
     * claimed there), not from the claim, so a loop that falls behind its topic does not see its claims end under
     * it; copies whose timestamps lie within the window of each other are caught. A record without a timestamp
     * is sent without one. Turn it off for a namespace whose other workers send no event time (claims with and
     * without one are kept apart on Redis), or one the agent files in time buckets ({@code
     * --namespace-event-rate}) where copies are re-sent with their own timestamps.
     */
    public B eventTime(boolean fromTimestamp) {
        this.eventTime = fromTimestamp;
        return self();
    }

    /** What to tell about each batch; a listener that does nothing by default. */
    public B listener(L listener) {
        this.listener = listener;
        return self();
    }

    /** How long each poll waits for records; 500 ms by default. */
    public B pollTimeout(Duration timeout) {
        this.pollTimeout = timeout;
        return self();
    }

    /**
     * How long to wait after the sink failed on a batch (its claims released, the batch to be read again) before
     * the next poll; 1 s by default, zero for none. {@code stop()} ends the wait.
     */
    public B failureBackoff(Duration backoff) {
        this.failureBackoff = backoff;
        return self();
    }

    /** The collected values, checked: a missing or bad one fails naming the setting. */
    LoopSettings<K, V> settings() {
        return new LoopSettings<>(
                loop,
                consumer,
                "consumer",
                claims,
                topics,
                idOf,
                idHeader,
                idGiven,
                eventTime,
                pollTimeout,
                failureBackoff);
    }

    String loop() {
        return loop;
    }
}
