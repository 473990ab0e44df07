package dev.dedup.examples.kafka;

import dev.dedup.client.Claims;
import dev.dedup.client.Owners;
import dev.dedup.examples.sink.Event;
import dev.dedup.wire.Item;
import dev.dedup.wire.Verdict;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;
import org.apache.kafka.clients.consumer.AcknowledgeType;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.ShareConsumer;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicIdPartition;
import org.apache.kafka.common.errors.WakeupException;

/**
 * A {@code KafkaShareConsumer} loop (share groups, KIP-932; explicit acknowledgement) that claims each delivery at the
 * agent. Several members read one partition, a record whose acquisition lock runs out is delivered again (possibly
 * to another member), and there is no committed offset a worker could compare with: the owner of a record is where
 * it sits, {@code topic:partition:offset} ({@link Owners#kafka}), whoever it is delivered to.
 *
 * <pre>{@code
 * for each poll:
 *   verdicts = claim(id = idOf(record), e.g. the message-id header, never the record key,
 *                    owner = Owners.kafka(topic, partition, offset))
 *   DUPLICATE (another copy, at another offset, is claimed): acknowledge ACCEPT without processing
 *   NEW or RETRY (a delivery again after a lock timeout or a RELEASE): process, then ACCEPT
 *   processing failed: release the claims, then RELEASE the records (their next delivery is NEW)
 *   commitSync()
 * }</pre>
 *
 * <p>A record delivered again after its lock ran out is {@code RETRY} and processed again, by design: the member that
 * had it may have died before writing anything. When that member was only slow, its output and the new one's both
 * reach the sink, which must absorb the second (e.g. by owner: {@link
 * dev.dedup.examples.sink.AggregateSink#writeOwned}). Renewing the lock while processing ({@link Renewal}) keeps
 * a slow member's records from being delivered elsewhere.
 */
public final class DedupingShareConsumer implements Runnable {

    /** What the processor calls while it works on a long batch, to keep the records' acquisition locks. */
    @FunctionalInterface
    public interface Renewal {
        void renew();
    }

    /** Processes a batch; may call {@link Renewal#renew()} as often as a third of the lock duration. */
    @FunctionalInterface
    public interface Processor {
        void process(List<Event> kept, List<Short> deliveryCounts, Renewal renewal) throws Exception;
    }

    /** Verdicts, releases and refused acknowledgements so far, for logs and tests. */
    public interface Listener {
        Listener NONE = new Listener() {};

        default void claimed(int fresh, int retried, int duplicates) {}

        default void released(int released) {}

        /** Acknowledgements the broker refused (the lock had run out and the record went elsewhere). */
        default void acknowledgementsRefused(int partitions, String reason) {}

        /** After the batch's output is written and before it is acknowledged. */
        default void beforeAcknowledge(int batch) {}
    }

    private final ShareConsumer<String, byte[]> consumer;
    private final String topic;
    private final Claims claims;
    private final Function<? super ConsumerRecord<String, byte[]>, String> idOf;
    private final Processor processor;
    private final Listener listener;
    private volatile boolean running = true;

    /**
     * @param claims where to claim, e.g. {@code Claims.fromEnvironment("clicks")}: the agent the consumer's pod names
     *     ({@code DEDUP_URL}, and {@code DEDUP_TOKEN} when the agent has a token)
     * @param idOf a record's message id, where its producer put it: {@code MessageIds.fromHeader("message-id")},
     *     or a function reading a field of the value; never the record key ({@link MessageIds})
     */
    public DedupingShareConsumer(
            ShareConsumer<String, byte[]> consumer,
            String topic,
            Claims claims,
            Function<? super ConsumerRecord<String, byte[]>, String> idOf,
            Processor processor,
            Listener listener) {
        this.consumer = consumer;
        this.topic = topic;
        this.claims = claims;
        this.idOf = idOf;
        this.processor = processor;
        this.listener = listener;
    }

    /**
     * Outcomes of records renewed while processing: after a {@code RENEW} is committed the 4.2 client hands the record
     * back on a later poll (KAFKA-20458) and only then takes its final acknowledgement.
     */
    private final Map<String, AcknowledgeType> pending = new HashMap<>();
    /** The kept records of the batch being processed that can be acknowledged now, by owner. */
    private final Map<String, ConsumerRecord<String, byte[]>> inFlight = new HashMap<>();

    @Override
    public void run() {
        consumer.subscribe(List.of(topic));
        int batches = 0;
        try {
            while (running) {
                ConsumerRecords<String, byte[]> records = consumer.poll(Duration.ofMillis(500));
                List<ConsumerRecord<String, byte[]>> all = new ArrayList<>(records.count());
                List<Item> items = new ArrayList<>(records.count());
                for (ConsumerRecord<String, byte[]> r : records) {
                    AcknowledgeType decided = pending.remove(owner(r));
                    if (decided != null) {
                        consumer.acknowledge(r, decided); // processed before its renewed lock came back
                        continue;
                    }
                    all.add(r);
                    items.add(new Item(idOf.apply(r), owner(r), Math.max(1, r.timestamp() / 1000)));
                }
                if (all.isEmpty()) {
                    if (!records.isEmpty()) {
                        reportRefused(consumer.commitSync());
                    }
                    continue;
                }
                List<Verdict> verdicts = claims.claim(items);
                List<Event> events = new ArrayList<>();
                List<Short> deliveries = new ArrayList<>();
                List<Item> keptItems = new ArrayList<>();
                inFlight.clear();
                int fresh = 0;
                for (int i = 0; i < all.size(); i++) {
                    ConsumerRecord<String, byte[]> r = all.get(i);
                    if (verdicts.get(i) == Verdict.DUPLICATE) {
                        consumer.acknowledge(r, AcknowledgeType.ACCEPT); // another copy is (being) processed
                        continue;
                    }
                    fresh += verdicts.get(i) == Verdict.NEW ? 1 : 0;
                    inFlight.put(owner(r), r);
                    keptItems.add(items.get(i));
                    events.add(Event.parse(items.get(i).id(), r.value(), r.topic(), r.partition(), r.offset()));
                    deliveries.add(r.deliveryCount().orElse((short) 1));
                }
                listener.claimed(fresh, keptItems.size() - fresh, all.size() - keptItems.size());
                AcknowledgeType outcome = AcknowledgeType.ACCEPT;
                try {
                    processor.process(events, deliveries, this::renew);
                    listener.beforeAcknowledge(++batches);
                } catch (Exception failed) {
                    listener.released(claims.release(keptItems)); // first the claims, so the redelivery is NEW
                    outcome = AcknowledgeType.RELEASE;
                }
                for (Item item : keptItems) {
                    ConsumerRecord<String, byte[]> r = inFlight.get(item.owner());
                    if (r != null) {
                        consumer.acknowledge(r, outcome);
                    } else {
                        pending.put(item.owner(), outcome); // renewed and not handed back yet
                    }
                }
                inFlight.clear();
                reportRefused(consumer.commitSync());
            }
        } catch (WakeupException stopping) {
            // stop() was called
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (IOException e) {
            throw new UncheckedIOException("the agent did not answer: nothing was skipped", e);
        } finally {
            consumer.close();
        }
    }

    private static String owner(ConsumerRecord<?, ?> r) {
        return Owners.kafka(r.topic(), r.partition(), r.offset());
    }

    /**
     * Extends the locks of the batch being processed: {@code RENEW} each record, commit, and take the renewed
     * records back from a poll (other records that poll brings are {@code RELEASE}d: this member is busy).
     */
    private void renew() {
        if (inFlight.isEmpty()) {
            return;
        }
        for (ConsumerRecord<String, byte[]> r : inFlight.values()) {
            consumer.acknowledge(r, AcknowledgeType.RENEW);
        }
        Set<String> renewed = new HashSet<>(inFlight.keySet());
        inFlight.clear();
        reportRefused(consumer.commitSync());
        for (ConsumerRecord<String, byte[]> r : consumer.poll(Duration.ZERO)) {
            AcknowledgeType decided = pending.remove(owner(r));
            if (renewed.contains(owner(r))) {
                inFlight.put(owner(r), r);
            } else {
                consumer.acknowledge(r, decided != null ? decided : AcknowledgeType.RELEASE);
            }
        }
    }

    private void reportRefused(Map<TopicIdPartition, Optional<KafkaException>> result) {
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

    /** Ends the loop from another thread (a shutdown hook). */
    public void stop() {
        running = false;
        consumer.wakeup();
    }
}
