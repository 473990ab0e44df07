package dev.dedup.kafka;

import dev.dedup.client.Claims;
import dev.dedup.wire.Item;
import dev.dedup.wire.Verdict;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.CommitFailedException;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.RebalanceInProgressException;
import org.apache.kafka.common.errors.WakeupException;

/**
 * A {@code KafkaConsumer} poll loop that claims each batch at the agent before the sink sees it.
 *
 * <pre>{@code
 * KafkaConsumer<String, byte[]> consumer = new KafkaConsumer<>(props); // enable.auto.commit=false
 * DedupConsumerLoop<String, byte[]> loop = DedupConsumerLoop.builder(consumer, Claims.fromEnvironment("clicks"))
 *         .topics("clicks")
 *         .idFromHeader("message-id")
 *         .sink(sink) // a TransactionalSink: the output and the next offsets in one transaction
 *         .build();
 * Runtime.getRuntime().addShutdownHook(new Thread(loop::stop)); // waits: the group is left before the JVM exits
 * loop.run();
 * }</pre>
 *
 * <p>Each poll:
 *
 * <ol>
 *   <li>claim every record: its message id (a header, never the record key: {@link MessageIds}), its owner {@code
 *       topic:partition:offset} ({@link dev.dedup.client.Owners#kafka}), its timestamp in seconds as event time;
 *   <li>hand the records answered {@code NEW} or {@code RETRY} to the {@link TransactionalSink}; {@code DUPLICATE}
 *       ones (another copy of the message, at another offset, is claimed) are skipped;
 *   <li>{@code commitSync} the next offsets.
 * </ol>
 *
 * <p>When the sink throws, the loop releases the kept records' claims (so that their redelivery, or another copy
 * meanwhile, is {@code NEW}) and seeks back to the batch's first offsets. {@code RETRY} means the same copy was read
 * before, by this consumer or by the one that had the partition before a crash or a rebalance, and its output may or
 * may not be written: the sink decides by the offsets it stored ({@link TransactionalSink}). When partitions are
 * assigned the loop seeks to the offsets the sink stored, if it tells them ({@link
 * TransactionalSink#storedOffsets}), and commits those offsets to Kafka too where they are ahead of Kafka's, so that
 * a partition that gets no new record after a restart shows no lag that is not there.
 *
 * <p>The loop runs on the thread that calls {@link #run()}, as a {@code KafkaConsumer} must, and closes the
 * consumer when it ends.
 *
 * @param <K> the records' key type
 * @param <V> the records' value type
 */
public final class DedupConsumerLoop<K, V> implements Runnable {

    private static final System.Logger LOG = System.getLogger(DedupConsumerLoop.class.getName());

    /** What the loop did, for logs, metrics and tests; every method runs on the loop's thread. */
    public interface Listener {
        /** A listener that does nothing. */
        Listener NONE = new Listener() {};

        /** After each batch's claims: how many records were answered each verdict. */
        default void claimed(int fresh, int retried, int duplicates) {}

        /** When the sink threw on a batch, before its claims are released; the loop goes on. */
        default void sinkFailed(Exception failure) {}

        /** After the sink failed on a batch: how many of its kept claims were released. */
        default void released(int released) {}

        /** After the sink wrote batch number {@code batch} (from 1) and before its offsets are committed. */
        default void beforeCommit(int batch) {}
    }

    private final Consumer<K, V> consumer;
    private final LoopSettings<K, V> settings;
    private final TransactionalSink<K, V> sink;
    private final Listener listener;
    private final LoopControl control = new LoopControl();

    private DedupConsumerLoop(
            Consumer<K, V> consumer, LoopSettings<K, V> settings, TransactionalSink<K, V> sink, Listener listener) {
        this.consumer = consumer;
        this.settings = settings;
        this.sink = sink;
        this.listener = listener;
    }

    /**
     * A builder for a loop on {@code consumer} (with {@code enable.auto.commit=false}: the loop commits) claiming
     * with {@code claims}, e.g. {@code Claims.fromEnvironment("clicks")}: the agent the pod's {@code DEDUP_URL}
     * names, in namespace {@code clicks}.
     */
    public static <K, V> Builder<K, V> builder(Consumer<K, V> consumer, Claims claims) {
        return new Builder<>(consumer, claims);
    }

    /**
     * Subscribes to the topics and runs the loop until {@link #stop()}, then closes the consumer.
     *
     * @throws UncheckedIOException when the agent did not answer within the claims' patience, or rejected a call;
     *     nothing was skipped: the batch's offsets are not committed and it is read again on restart
     * @throws IllegalArgumentException when a record has no id (a missing header: {@link MessageIds#header})
     */
    @Override
    public void run() {
        control.run(
                () -> consumer.subscribe(settings.topics, new SeekToStoredOffsets()),
                this::poll,
                consumer::close); // commits nothing (the loop commits each batch), leaves the group
    }

    private int poll(int batches) throws IOException, InterruptedException {
        ConsumerRecords<K, V> records = consumer.poll(settings.pollTimeout);
        return records.isEmpty() ? batches : handle(records, batches);
    }

    /** Claims, writes and commits one batch; returns the number of batches written so far. */
    private int handle(ConsumerRecords<K, V> records, int batches) throws IOException, InterruptedException {
        List<ConsumerRecord<K, V>> all = new ArrayList<>(records.count());
        List<Item> items = new ArrayList<>(records.count());
        Map<TopicPartition, Long> first = new HashMap<>();
        Map<TopicPartition, Long> next = new LinkedHashMap<>();
        for (ConsumerRecord<K, V> r : records) {
            all.add(r);
            items.add(settings.item(r));
            TopicPartition tp = new TopicPartition(r.topic(), r.partition());
            first.putIfAbsent(tp, r.offset());
            next.put(tp, r.offset() + 1);
        }
        List<Verdict> verdicts = settings.claims.claim(items); // waits out an agent restart; throws past patience
        List<ConsumerRecord<K, V>> kept = new ArrayList<>();
        List<Item> keptItems = new ArrayList<>();
        int fresh = 0;
        for (int i = 0; i < verdicts.size(); i++) {
            Verdict v = verdicts.get(i);
            if (v != Verdict.DUPLICATE) {
                kept.add(all.get(i));
                keptItems.add(items.get(i));
                fresh += v == Verdict.NEW ? 1 : 0;
            }
        }
        listener.claimed(fresh, kept.size() - fresh, verdicts.size() - kept.size());
        try {
            sink.write(kept, next);
        } catch (Exception failed) {
            LOG.log(
                    System.Logger.Level.WARNING,
                    "the sink failed on a batch of " + kept.size()
                            + " records: releasing their claims and reading the batch again",
                    failed);
            listener.sinkFailed(failed);
            listener.released(LoopSettings.release(settings.claims, keptItems, failed));
            if (failed instanceof SinkStoppedException) {
                throw (SinkStoppedException) failed; // the sink cannot go on: the loop ends
            }
            first.forEach(consumer::seek);
            settings.backOff(control.stopping());
            return batches;
        }
        listener.beforeCommit(++batches);
        Map<TopicPartition, OffsetAndMetadata> commit = new HashMap<>();
        next.forEach((tp, o) -> commit.put(tp, new OffsetAndMetadata(o)));
        try {
            commit(commit);
        } catch (CommitFailedException | RebalanceInProgressException moved) {
            // The output and its offsets are in the sink: whoever has the partitions now reads the batch again,
            // is answered RETRY, and the sink skips what it applied. Nothing to undo; go on with what is assigned.
            LOG.log(System.Logger.Level.INFO, "offsets not committed, the group rebalanced: " + moved.getMessage());
        }
        return batches;
    }

    /** Commits the offsets, once more after a pending wakeup ({@link LoopControl#commit}). */
    private void commit(Map<TopicPartition, OffsetAndMetadata> offsets) {
        LoopControl.commit(() -> consumer.commitSync(offsets));
    }

    /**
     * Ends the loop and waits, up to 30 s, until it has: the batch in hand written and committed, the consumer closed
     * and the group left, so that a shutdown hook ({@code addShutdownHook(new Thread(loop::stop))}) keeps the JVM
     * until then and the partitions go to another member at once rather than after the session timeout.
     */
    public void stop() {
        stop(LoopControl.DEFAULT_STOP_TIMEOUT);
    }

    /**
     * Ends the loop and waits up to {@code timeout} until {@link #run()} has closed the consumer.
     *
     * @return true when the loop has ended (or never ran); false when the time ran out, or when called on the loop's
     *     own thread (from the sink or a listener), which cannot wait for itself: the loop then ends after the batch
     */
    public boolean stop(java.time.Duration timeout) {
        return control.stop(timeout, consumer::wakeup);
    }

    /** Starts each assigned partition where the sink's output ends, when the sink tells. */
    private final class SeekToStoredOffsets implements ConsumerRebalanceListener {
        @Override
        public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
            if (partitions.isEmpty()) {
                return;
            }
            Map<TopicPartition, Long> stored;
            try {
                stored = sink.storedOffsets(partitions);
            } catch (Exception e) {
                throw new IllegalStateException("the sink's stored offsets of " + partitions + " could not be read", e);
            }
            Map<TopicPartition, OffsetAndMetadata> committed = consumer.committed(new java.util.HashSet<>(partitions));
            Map<TopicPartition, OffsetAndMetadata> ahead = new HashMap<>();
            for (TopicPartition tp : partitions) {
                Long offset = stored.get(tp);
                if (offset != null) {
                    consumer.seek(tp, offset);
                    OffsetAndMetadata kafka = committed.get(tp);
                    if (kafka == null || kafka.offset() < offset) {
                        ahead.put(tp, new OffsetAndMetadata(offset));
                    }
                }
            }
            if (!ahead.isEmpty()) {
                // The sink's output reaches past Kafka's offsets (a crash between the two): tell Kafka, so that a lag
                // monitor sees none on a partition that gets no new record. Only for the monitors: a failure here
                // (a rebalance under way, a timeout) is logged, and the next batch's commit tells Kafka anyway.
                try {
                    commit(ahead);
                } catch (WakeupException | org.apache.kafka.common.errors.InterruptException stopping) {
                    throw stopping;
                } catch (org.apache.kafka.common.KafkaException e) {
                    LOG.log(
                            System.Logger.Level.INFO,
                            "the sink's offsets of " + ahead.keySet() + " were not committed to Kafka: " + e);
                }
            }
        }

        @Override
        public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
            // every written batch is committed before the next poll: nothing is pending
        }
    }

    /**
     * Settings of a {@link DedupConsumerLoop}; {@link #topics}, an id ({@link #idFromHeader} or {@link #id}) and a
     * {@link #sink} are required. A value is checked where it is set;
     * {@link #build()} checks that the required ones were given.
     *
     * @param <K> the records' key type
     * @param <V> the records' value type
     */
    public static final class Builder<K, V>
            extends LoopBuilder<K, V, TransactionalSink<K, V>, Listener, Builder<K, V>> {
        private final Consumer<K, V> consumer;

        private Builder(Consumer<K, V> consumer, Claims claims) {
            super("DedupConsumerLoop", consumer, "consumer", claims, Listener.NONE);
            this.consumer = consumer;
        }

        /** Where the kept records go, with the next offsets, in one transaction. */
        public Builder<K, V> sink(TransactionalSink<K, V> sink) {
            this.sink = LoopSettings.nonNull(sink, loop(), "sink");
            return this;
        }

        /**
         * The loop.
         *
         * @throws IllegalArgumentException naming the setting that is missing or not valid
         */
        public DedupConsumerLoop<K, V> build() {
            LoopSettings<K, V> settings = settings();
            return new DedupConsumerLoop<>(consumer, settings, LoopSettings.required(sink, loop(), "sink"), listener);
        }
    }
}
