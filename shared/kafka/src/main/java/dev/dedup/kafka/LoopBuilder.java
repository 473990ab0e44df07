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
 * The settings both loops' builders share ({@link DedupConsumerLoop.Builder}, {@link DedupShareConsumerLoop.Builder}):
 * public so that a user reads the methods those builders inherit where they are declared, not constructible outside
 * this package. A value is checked where it is set, and a bad one fails there naming the setting; {@code build()}
 * checks only that the required settings were given.
 *
 * @param <K> the records' key type
 * @param <V> the records' value type
 * @param <S> the sink's type
 * @param <L> the listener's type
 * @param <B> the builder's own type, which every setter returns
 */
public abstract class LoopBuilder<K, V, S, L, B extends LoopBuilder<K, V, S, L, B>> {

    private final String loop;
    private final Claims claims;
    private List<String> topics;
    private Function<? super ConsumerRecord<K, V>, String> idOf;
    private boolean eventTime = true;
    S sink;
    L listener;
    private Duration pollTimeout = LoopSettings.DEFAULT_POLL_TIMEOUT;
    private Duration failureBackoff = LoopSettings.DEFAULT_FAILURE_BACKOFF;

    LoopBuilder(String loop, Object consumer, String consumerSetting, Claims claims, L noListener) {
        this.loop = loop;
        LoopSettings.nonNull(consumer, loop, consumerSetting);
        this.claims = LoopSettings.nonNull(claims, loop, "claims");
        this.listener = noListener;
    }

    @SuppressWarnings("unchecked")
    private B self() {
        return (B) this;
    }

    /**
     * The topics to subscribe to; at least one.
     *
     * @throws IllegalArgumentException when none is given, or a name is empty
     */
    public B topics(String... topics) {
        return topics(topics == null ? null : Arrays.asList(topics));
    }

    /**
     * The topics to subscribe to; at least one.
     *
     * @throws IllegalArgumentException when none is given, or a name is empty
     */
    public B topics(Collection<String> topics) {
        LoopSettings.require(topics != null && !topics.isEmpty(), loop, "topics: none given");
        List<String> names = new ArrayList<>(topics);
        for (String t : names) {
            LoopSettings.require(t != null && !t.trim().isEmpty(), loop, "topics: an empty topic name in " + names);
        }
        this.topics = List.copyOf(names);
        return self();
    }

    /**
     * Each record's message id is the UTF-8 value of its header {@code name} ({@link MessageIds#header}).
     *
     * @throws IllegalArgumentException when the name is empty
     */
    public B idFromHeader(String name) {
        LoopSettings.require(name != null && !name.isEmpty(), loop, "idFromHeader: the header name is empty");
        this.idOf = MessageIds.fromHeader(name);
        return self();
    }

    /**
     * Each record's message id, where its producer put it (e.g. a field of the value); never the record key, which
     * most topics share between many messages ({@link MessageIds}).
     */
    public B id(Function<? super ConsumerRecord<K, V>, String> idOf) {
        this.idOf = LoopSettings.nonNull(idOf, loop, "id");
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
        this.listener = LoopSettings.nonNull(listener, loop, "listener");
        return self();
    }

    /**
     * How long each poll waits for records; 500 ms by default.
     *
     * @throws IllegalArgumentException when not positive
     */
    public B pollTimeout(Duration timeout) {
        LoopSettings.require(
                timeout != null && !timeout.isNegative() && !timeout.isZero(),
                loop,
                "pollTimeout: must be positive, got " + timeout);
        this.pollTimeout = timeout;
        return self();
    }

    /**
     * How long to wait after the sink failed on a batch (its claims released, the batch to be read again) before
     * the next poll; 1 s by default, zero for none. {@code stop()} ends the wait.
     *
     * @throws IllegalArgumentException when negative
     */
    public B failureBackoff(Duration backoff) {
        LoopSettings.require(
                backoff != null && !backoff.isNegative(), loop, "failureBackoff: must be zero or more, got " + backoff);
        this.failureBackoff = backoff;
        return self();
    }

    /** The settings given, each checked when it was set; a required one not given fails naming it. */
    LoopSettings<K, V> settings() {
        return new LoopSettings<>(loop, claims, topics, idOf, eventTime, pollTimeout, failureBackoff);
    }

    String loop() {
        return loop;
    }
}
