package dev.dedup.kafka;

import dev.dedup.client.Claims;
import dev.dedup.client.Owners;
import dev.dedup.wire.Item;
import dev.dedup.wire.Limits;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.apache.kafka.clients.consumer.ConsumerRecord;

/**
 * What both loops are built from, checked once in {@code build()}: a bad value fails there with a message that names
 * the setting. The builders collect the values; this class holds them, validated, and turns a record into its item.
 */
final class LoopSettings<K, V> {

    static final Duration DEFAULT_POLL_TIMEOUT = Duration.ofMillis(500);
    static final Duration DEFAULT_FAILURE_BACKOFF = Duration.ofSeconds(1);

    final Claims claims;
    final List<String> topics;
    final Function<? super ConsumerRecord<K, V>, String> idOf;
    final boolean eventTime;
    final Duration pollTimeout;
    final Duration failureBackoff;

    /**
     * @param consumerSetting what the consumer is called in messages ({@code consumer}, {@code shareConsumer})
     * @param idOf the id function, or null when {@code idHeader} was given (or neither)
     * @param idHeader the header name, or null when {@code idOf} was given (or neither)
     * @param idGiven which of {@code id} and {@code idFromHeader} was called last, or null for neither
     */
    LoopSettings(
            String loop,
            Object consumer,
            String consumerSetting,
            Claims claims,
            Collection<String> topics,
            Function<? super ConsumerRecord<K, V>, String> idOf,
            String idHeader,
            String idGiven,
            boolean eventTime,
            Duration pollTimeout,
            Duration failureBackoff) {
        require(consumer != null, loop, consumerSetting + ": null");
        require(claims != null, loop, "claims: null");
        require(topics != null && !topics.isEmpty(), loop, "topics: none given");
        List<String> names = new ArrayList<>(topics);
        for (String t : names) {
            require(t != null && !t.trim().isEmpty(), loop, "topics: an empty topic name in " + names);
        }
        require(idGiven != null, loop, "id: not set; give id(record -> ...) or idFromHeader(\"message-id\")");
        if ("idFromHeader".equals(idGiven)) {
            require(idHeader != null && !idHeader.isEmpty(), loop, "idFromHeader: the header name is empty");
            this.idOf = MessageIds.fromHeader(idHeader);
        } else {
            require(idOf != null, loop, "id: null");
            this.idOf = idOf;
        }
        require(
                pollTimeout != null && !pollTimeout.isNegative() && !pollTimeout.isZero(),
                loop,
                "pollTimeout: must be positive, got " + pollTimeout);
        require(
                failureBackoff != null && !failureBackoff.isNegative(),
                loop,
                "failureBackoff: must be zero or more, got " + failureBackoff);
        this.claims = claims;
        this.topics = Collections.unmodifiableList(names);
        this.eventTime = eventTime;
        this.pollTimeout = pollTimeout;
        this.failureBackoff = failureBackoff;
    }

    /**
     * Waits {@link #failureBackoff} after the sink failed, so that a sink that keeps failing (its database down) is
     * not called again at once with the same batch; a {@code stop()} meanwhile ends the wait.
     */
    void backOff(CountDownLatch stopping) throws InterruptedException {
        stopping.await(failureBackoff.toNanos(), TimeUnit.NANOSECONDS);
    }

    /**
     * Gives back the claims of a batch the sink failed on, and says how many were released; when that fails too, the
     * sink's failure travels with the release's, suppressed, so that neither is lost.
     */
    static int release(Claims claims, List<Item> items, Exception sinkFailure)
            throws IOException, InterruptedException {
        try {
            int n = 0;
            for (boolean released : claims.release(items)) {
                n += released ? 1 : 0;
            }
            return n;
        } catch (IOException | RuntimeException e) {
            e.addSuppressed(sinkFailure);
            throw e;
        }
    }

    static <T> T required(T value, String loop, String setting) {
        require(value != null, loop, setting + ": not set");
        return value;
    }

    static void require(boolean ok, String loop, String message) {
        if (!ok) {
            throw new IllegalArgumentException(loop + " " + message);
        }
    }

    /** The record's item: its id, its owner {@code topic:partition:offset}, and its timestamp in seconds. */
    Item item(ConsumerRecord<K, V> r) {
        String id = idOf.apply(r);
        if (id == null || id.isEmpty()) {
            throw new IllegalArgumentException("the record at " + owner(r) + " has no id: the id function gave "
                    + (id == null ? "null" : "an empty id"));
        }
        long second = r.timestamp() / 1000;
        if (!eventTime || second < 1) {
            return new Item(id, owner(r)); // a record without a timestamp (-1), or before 1970, is sent without one
        }
        return new Item(id, owner(r), Math.min(Limits.MAX_EVENT_SECOND, second));
    }

    static String owner(ConsumerRecord<?, ?> r) {
        return Owners.kafka(r.topic(), r.partition(), r.offset());
    }
}
