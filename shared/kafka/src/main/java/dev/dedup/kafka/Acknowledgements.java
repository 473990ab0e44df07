package dev.dedup.kafka;

import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.apache.kafka.clients.consumer.AcknowledgeType;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ShareConsumer;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicIdPartition;

/**
 * The share loop's acknowledgements, lock renewal included. After a {@code RENEW} is committed, the 4.2 client hands
 * the renewed record back to the application on a later {@code poll()} and takes its final acknowledgement only then
 * (KAFKA-20458). So each renewal polls right away and takes its records back; the outcome of a record not handed
 * back by the time the batch is decided waits here until a poll brings it.
 */
final class Acknowledgements<K, V> {

    private final ShareConsumer<K, V> consumer;
    private final DedupingShareConsumer.Listener listener;
    /** Outcomes of renewed records decided before a poll handed them back, by owner. */
    private final Map<String, AcknowledgeType> pending = new HashMap<>();
    /** The records of the batch being written that can be acknowledged now, by owner. */
    private final Map<String, ConsumerRecord<K, V>> inFlight = new HashMap<>();
    /** The records of the batch being written that were renewed and not handed back yet, by owner. */
    private final Set<String> renewed = new HashSet<>();

    Acknowledgements(ShareConsumer<K, V> consumer, DedupingShareConsumer.Listener listener) {
        this.consumer = consumer;
        this.listener = listener;
    }

    /** Acknowledges {@code r} with its decided outcome if it is a renewed record handed back late; false if not. */
    boolean acknowledgedIfDecided(ConsumerRecord<K, V> r) {
        AcknowledgeType decided = pending.remove(LoopSettings.owner(r));
        if (decided == null) {
            return false;
        }
        consumer.acknowledge(r, decided); // written before its renewed lock came back
        return true;
    }

    /** The batch about to be written: the records a renewal extends. */
    void holding(List<Delivery<K, V>> kept) {
        inFlight.clear();
        for (Delivery<K, V> d : kept) {
            inFlight.put(d.owner(), d.record());
        }
    }

    /**
     * Extends the locks of the batch being written: {@code RENEW} each record held, commit, and take the renewed
     * records back from a poll (other records that poll brings are {@code RELEASE}d: this member is busy). A renewed
     * record that poll did not hand back yet is taken back by the next renewal's poll, and renewed from then on.
     */
    void renew() {
        if (inFlight.isEmpty() && renewed.isEmpty()) {
            return;
        }
        if (!inFlight.isEmpty()) {
            for (ConsumerRecord<K, V> r : inFlight.values()) {
                consumer.acknowledge(r, AcknowledgeType.RENEW);
            }
            renewed.addAll(inFlight.keySet());
            inFlight.clear();
            commit();
        }
        for (ConsumerRecord<K, V> r : consumer.poll(Duration.ZERO)) {
            String owner = LoopSettings.owner(r);
            AcknowledgeType decided = pending.remove(owner);
            if (renewed.remove(owner)) {
                inFlight.put(owner, r);
            } else {
                consumer.acknowledge(r, decided != null ? decided : AcknowledgeType.RELEASE);
            }
        }
    }

    /** Acknowledges the batch with {@code outcome}, now or, for a renewed record not handed back yet, when it is. */
    void acknowledge(List<Delivery<K, V>> kept, AcknowledgeType outcome) {
        for (Delivery<K, V> d : kept) {
            ConsumerRecord<K, V> r = inFlight.get(d.owner());
            if (r != null) {
                consumer.acknowledge(r, outcome);
            } else {
                pending.put(d.owner(), outcome); // renewed and not handed back yet
            }
        }
        inFlight.clear();
        renewed.clear();
    }

    /** Commits the acknowledgements, telling the listener of those the broker refused. */
    void commit() {
        Map<TopicIdPartition, Optional<KafkaException>> result = consumer.commitSync();
        int refused = 0;
        String reason = null;
        for (Optional<KafkaException> e : result.values()) {
            if (e.isPresent()) {
                refused++;
                reason = e.get().toString();
            }
        }
        if (refused > 0) {
            listener.acknowledgementsRefused(refused, reason);
        }
    }
}
