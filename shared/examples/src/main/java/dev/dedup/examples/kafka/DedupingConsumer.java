package dev.dedup.examples.kafka;

import dev.dedup.client.Claims;
import dev.dedup.examples.sink.Event;
import dev.dedup.wire.Item;
import dev.dedup.wire.Verdict;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Function;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;

/**
 * A {@code KafkaConsumer} poll loop that claims each batch at the agent before processing it: claim, process, commit
 * offsets; on a processing failure, release the claims and read the batch again.
 *
 * <pre>{@code
 * for each poll:
 *   verdicts = claim(id = idOf(record), e.g. the message-id header, never the record key,
 *                    owner = Owners.kafka(topic, partition, offset), ts = record timestamp / 1000)
 *   process the records answered NEW or RETRY (RETRY: this same copy was claimed before, by us or by the
 *       consumer that had the partition before a crash or a rebalance, and its output may be missing)
 *   skip DUPLICATE (another copy of the message, at another offset, is claimed)
 *   commitSync(offsets)
 *   on a processing failure: release the claims (the redelivery is then NEW, and another copy may take the
 *       claim meanwhile), seek back to the batch's first offsets, poll again
 * }</pre>
 *
 * <p>What happens between the output and the offset commit (a crash, a rebalance) is read again and answered
 * {@code RETRY}: the output must be written so that this is absorbed, e.g. with the offsets in the same transaction
 * ({@link dev.dedup.examples.sink.AggregateSink#writeRecords}).
 */
public final class DedupingConsumer implements Runnable {

    /** Verdicts and releases so far, for logs and tests. */
    public interface Listener {
        Listener NONE = new Listener() {};

        default void claimed(int fresh, int retried, int duplicates) {}

        default void released(int released) {}

        /** After the batch's output is written and before its offsets are committed. */
        default void beforeCommit(int batch) {}
    }

    private final Consumer<String, byte[]> consumer;
    private final String topic;
    private final Claims claims;
    private final Function<? super ConsumerRecord<String, byte[]>, String> idOf;
    private final BatchProcessor processor;
    private final Listener listener;
    private volatile boolean running = true;

    /**
     * @param claims where to claim, e.g. {@code Claims.fromEnvironment("clicks")}: the agent the consumer's pod names
     *     ({@code DEDUP_URL}, and {@code DEDUP_TOKEN} when the agent has a token)
     * @param idOf a record's message id, where its producer put it: {@code MessageIds.fromHeader("message-id")},
     *     or a function reading a field of the value; never the record key ({@link MessageIds})
     */
    public DedupingConsumer(
            Consumer<String, byte[]> consumer,
            String topic,
            Claims claims,
            Function<? super ConsumerRecord<String, byte[]>, String> idOf,
            BatchProcessor processor,
            Listener listener) {
        this.consumer = consumer;
        this.topic = topic;
        this.claims = claims;
        this.idOf = idOf;
        this.processor = processor;
        this.listener = listener;
    }

    @Override
    public void run() {
        consumer.subscribe(List.of(topic));
        int batches = 0;
        try {
            while (running) {
                ConsumerRecords<String, byte[]> records = consumer.poll(Duration.ofMillis(500));
                if (records.isEmpty()) {
                    continue;
                }
                List<Event> events = new ArrayList<>(records.count());
                List<Item> items = new ArrayList<>(records.count());
                Map<Integer, Long> first = new HashMap<>();
                Map<Integer, Long> next = new TreeMap<>();
                for (ConsumerRecord<String, byte[]> r : records) {
                    Event e = Event.parse(idOf.apply(r), r.value(), r.topic(), r.partition(), r.offset());
                    events.add(e);
                    items.add(new Item(e.id(), e.owner(), Math.max(1, r.timestamp() / 1000)));
                    first.putIfAbsent(r.partition(), r.offset());
                    next.put(r.partition(), r.offset() + 1);
                }
                List<Verdict> verdicts = claims.claim(items); // waits out an agent restart; throws past patience
                List<Event> kept = new ArrayList<>();
                List<Item> keptItems = new ArrayList<>();
                int fresh = 0;
                int retried = 0;
                for (int i = 0; i < verdicts.size(); i++) {
                    Verdict v = verdicts.get(i);
                    if (v != Verdict.DUPLICATE) {
                        kept.add(events.get(i));
                        keptItems.add(items.get(i));
                        fresh += v == Verdict.NEW ? 1 : 0;
                        retried += v == Verdict.RETRY ? 1 : 0;
                    }
                }
                listener.claimed(fresh, retried, verdicts.size() - kept.size());
                try {
                    processor.process(kept, next);
                } catch (Exception failed) {
                    listener.released(claims.release(keptItems));
                    for (Map.Entry<Integer, Long> e : first.entrySet()) {
                        consumer.seek(new TopicPartition(topic, e.getKey()), e.getValue());
                    }
                    continue;
                }
                listener.beforeCommit(++batches);
                Map<TopicPartition, OffsetAndMetadata> commit = new HashMap<>();
                next.forEach((p, o) -> commit.put(new TopicPartition(topic, p), new OffsetAndMetadata(o)));
                consumer.commitSync(commit);
            }
        } catch (WakeupException stopping) {
            // stop() was called
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException("the agent did not answer: nothing was skipped", e);
        } finally {
            consumer.close();
        }
    }

    /** Ends the loop from another thread (a shutdown hook). */
    public void stop() {
        running = false;
        consumer.wakeup();
    }
}
