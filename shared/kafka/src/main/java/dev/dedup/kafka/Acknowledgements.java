package dev.dedup.kafka;

import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import org.apache.kafka.clients.consumer.AcknowledgeType;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ShareConsumer;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicIdPartition;
import org.apache.kafka.common.TopicPartition;

/**
 * The share loop's acknowledgements, lock renewal included.
 *
 * <p>After a {@code RENEW} is committed, the 4.2 client hands the renewed record back to the application on a later
 * {@code poll()} and takes its final acknowledgement only then (KAFKA-20458). So each renewal polls right away and
 * takes its records back; the outcome of a record not handed back by the time the batch is decided waits here until
 * a poll brings it. A record is the same delivery only with the same delivery count: one handed back with a higher
 * count lost its lock in between and is a new delivery, handled as any other.
 *
 * <p>No record a renewal's poll brings is given back unprocessed. The broker counts every acquisition as a delivery
 * and a {@code RELEASE} does not give it back, so a record released at each renewal would reach {@code
 * group.share.delivery.count.limit} and be archived unprocessed. A renewal whose records the broker refused (their
 * locks had run out) does not poll: nothing of the batch can come back, and the 4.2 client, with no renewal left,
 * would hand over new records. Any record a renewal's poll brings that is not the batch's is renewed with it
 * ({@code RENEW}) and processed when a poll of the loop hands it over again.
 */
final class Acknowledgements<K, V> {

    /** How long a renewed lock lasts when the client has not reported the group's value: the broker's default. */
    static final Duration DEFAULT_LOCK = Duration.ofSeconds(30);

    private final ShareConsumer<K, V> consumer;
    private final DedupShareConsumerLoop.Listener listener;
    private final LongSupplier nanoTime;
    /**
     * Outcomes of renewed records decided before a poll handed them back, by owner; each kept until its renewed lock
     * would have run out, after which the broker refuses it anyway.
     */
    private final Map<String, Decided> pending = new HashMap<>();
    /** The records of the batch being written that can be acknowledged now, by owner. */
    private final Map<String, ConsumerRecord<K, V>> inFlight = new HashMap<>();
    /** The records of the batch being written that were renewed and not handed back yet, by owner. */
    private final Map<String, ConsumerRecord<K, V>> renewed = new HashMap<>();
    /**
     * Records a renewal's poll brought that are not the batch's, renewed with it and not handed over yet, by owner:
     * the loop's next poll processes them.
     */
    private final Map<String, ConsumerRecord<K, V>> others = new HashMap<>();
    /** Whether some of {@link #others} were acknowledged {@code RENEW} since the last commit. */
    private boolean othersToCommit;
    /** When the last renewal the broker took was committed ({@link #nanoTime}). */
    private long renewedAt;

    /** An outcome waiting for its record: the delivery it is for, and until when the lock holds. */
    private static final class Decided {
        final Optional<Short> delivery;
        final AcknowledgeType outcome;
        final long until;

        Decided(Optional<Short> delivery, AcknowledgeType outcome, long until) {
            this.delivery = delivery;
            this.outcome = outcome;
            this.until = until;
        }
    }

    Acknowledgements(ShareConsumer<K, V> consumer, DedupShareConsumerLoop.Listener listener, LongSupplier nanoTime) {
        this.consumer = consumer;
        this.listener = listener;
        this.nanoTime = nanoTime;
    }

    /**
     * Acknowledges {@code r} with its decided outcome if it is a renewed record handed back late; false if not (a
     * new delivery of the same offset included: it is processed as any other).
     */
    boolean acknowledgedIfDecided(ConsumerRecord<K, V> r) {
        String owner = LoopSettings.owner(r);
        Decided decided = pending.remove(owner);
        if (decided == null || !decided.delivery.equals(r.deliveryCount())) {
            return false;
        }
        consumer.acknowledge(r, decided.outcome); // written before its renewed lock came back
        return true;
    }

    /** Forgets the outcomes whose renewed locks have run out: the broker delivers those records anew. */
    void expire() {
        long now = nanoTime.getAsLong();
        pending.values().removeIf(d -> now - d.until > 0);
    }

    /** The batch about to be written: the records a renewal extends. */
    void holding(List<Delivery<K, V>> kept) {
        inFlight.clear();
        renewed.clear();
        others.clear();
        othersToCommit = false;
        for (Delivery<K, V> d : kept) {
            inFlight.put(d.owner(), d.record());
        }
    }

    /**
     * Extends the locks of the batch being written: {@code RENEW} each record held, commit, and take the renewed
     * records back from a poll. Records of partitions whose acknowledgements the broker refused lost their locks and
     * leave the renewal; when nothing is left to take back, there is no poll. Any other record the poll brings is
     * renewed as well, at every renewal, and processed when a poll of the loop hands it over again. A renewed record
     * that poll did not hand back yet is taken back by the next renewal's poll, and renewed from then on.
     */
    void renew() {
        if (!inFlight.isEmpty() || othersToCommit) {
            Map<String, ConsumerRecord<K, V>> renewing = new HashMap<>(inFlight);
            inFlight.clear();
            for (ConsumerRecord<K, V> r : renewing.values()) {
                consumer.acknowledge(r, AcknowledgeType.RENEW);
            }
            othersToCommit = false;
            Set<TopicPartition> refused = commit();
            renewing.values().removeIf(r -> refused.contains(partition(r)));
            others.values().removeIf(r -> refused.contains(partition(r)));
            if (!renewing.isEmpty()) {
                renewed.putAll(renewing);
                renewedAt = nanoTime.getAsLong();
            }
        }
        if (renewed.isEmpty() && others.isEmpty()) {
            return; // every lock ran out, or none was taken: nothing can come back
        }
        for (ConsumerRecord<K, V> r : consumer.poll(Duration.ZERO)) {
            String owner = LoopSettings.owner(r);
            if (sameDelivery(renewed.get(owner), r)) {
                renewed.remove(owner);
                inFlight.put(owner, r);
            } else if (!acknowledgedIfDecided(r)) {
                consumer.acknowledge(r, AcknowledgeType.RENEW); // not this batch's: kept for a later poll
                others.put(owner, r);
                othersToCommit = true;
            }
        }
    }

    private static boolean sameDelivery(ConsumerRecord<?, ?> mine, ConsumerRecord<?, ?> r) {
        return mine != null && Objects.equals(mine.deliveryCount(), r.deliveryCount());
    }

    private static TopicPartition partition(ConsumerRecord<?, ?> r) {
        return new TopicPartition(r.topic(), r.partition());
    }

    /**
     * Acknowledges the batch with {@code outcome}, now or, for a renewed record not handed back yet, when it is. A
     * record whose renewal the broker refused is left alone: its lock ran out and its next delivery is a new one.
     */
    void acknowledge(List<Delivery<K, V>> kept, AcknowledgeType outcome) {
        long until = renewedAt + lockNanos();
        for (Delivery<K, V> d : kept) {
            ConsumerRecord<K, V> r = inFlight.get(d.owner());
            if (r != null) {
                consumer.acknowledge(r, outcome);
            } else {
                ConsumerRecord<K, V> waiting = renewed.get(d.owner());
                if (waiting != null) {
                    pending.put(d.owner(), new Decided(waiting.deliveryCount(), outcome, until));
                }
            }
        }
        inFlight.clear();
        renewed.clear();
        others.clear(); // their acknowledgements go with the batch's; the next poll hands them over
        othersToCommit = false;
    }

    private long lockNanos() {
        return TimeUnit.MILLISECONDS.toNanos(
                consumer.acquisitionLockTimeoutMs().map(Integer::longValue).orElse(DEFAULT_LOCK.toMillis()));
    }

    /**
     * Commits the acknowledgements, telling the listener of those the broker refused; returns the partitions whose
     * acknowledgements were refused.
     */
    Set<TopicPartition> commit() {
        Map<TopicIdPartition, Optional<KafkaException>> result = consumer.commitSync();
        Set<TopicPartition> refused = new HashSet<>();
        String reason = null;
        for (Map.Entry<TopicIdPartition, Optional<KafkaException>> e : result.entrySet()) {
            if (e.getValue().isPresent()) {
                refused.add(e.getKey().topicPartition());
                reason = e.getValue().get().toString();
            }
        }
        if (!refused.isEmpty()) {
            listener.acknowledgementsRefused(refused.size(), reason);
        }
        return refused;
    }
}
