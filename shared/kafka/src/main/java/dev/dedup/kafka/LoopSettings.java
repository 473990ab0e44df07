package dev.dedup.kafka;

import dev.dedup.client.Claims;
import dev.dedup.client.Owners;
import dev.dedup.wire.Item;
import dev.dedup.wire.Limits;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.apache.kafka.clients.consumer.ConsumerRecord;

/**
 * What both loops are built from: the values their builders checked as they were set. This class holds them and
 * turns a record into its item.
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

    /** The values given to a builder, each checked there; fails naming a required one that was not given. */
    LoopSettings(
            String loop,
            Claims claims,
            List<String> topics,
            Function<? super ConsumerRecord<K, V>, String> idOf,
            boolean eventTime,
            Duration pollTimeout,
            Duration failureBackoff) {
        this.claims = claims;
        this.topics = required(topics, loop, "topics");
        this.idOf = idOf;
        require(idOf != null, loop, "id: not set; give id(record -> ...) or idFromHeader(\"message-id\")");
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

    /** {@code value}, or a failure naming the setting when it is null: for a setter given null. */
    static <T> T nonNull(T value, String loop, String setting) {
        require(value != null, loop, setting + ": null");
        return value;
    }

    /** {@code value}, or a failure saying the setting was never given: for {@code build()}. */
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
