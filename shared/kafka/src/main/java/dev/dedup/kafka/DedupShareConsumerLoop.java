package dev.dedup.kafka;

import dev.dedup.client.Claims;
import dev.dedup.wire.Item;
import dev.dedup.wire.Verdict;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.clients.consumer.AcknowledgeType;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.ShareConsumer;

/**
 * A {@code KafkaShareConsumer} loop (share groups, KIP-932, with {@code share.acknowledgement.mode=explicit}) that
 * claims each delivery at the agent before the sink sees it.
 *
 * <pre>{@code
 * KafkaShareConsumer<String, byte[]> consumer = new KafkaShareConsumer<>(props); // acknowledgement mode explicit
 * DedupShareConsumerLoop<String, byte[]> loop =
 *         DedupShareConsumerLoop.builder(consumer, Claims.fromEnvironment("orders"))
 *                 .topics("orders")
 *                 .idFromHeader("message-id")
 *                 .sink(sink) // an OwnedSink: applies each owner once
 *                 .build();
 * Runtime.getRuntime().addShutdownHook(new Thread(loop::stop));
 * loop.run();
 * }</pre>
 *
 * <p>Several members read one partition, a record whose acquisition lock runs out is delivered again (possibly to
 * another member), and there is no committed offset to compare with: the owner of a record is where it sits, {@code
 * topic:partition:offset} ({@link dev.dedup.client.Owners#kafka}), whoever it is delivered to. Each poll:
 *
 * <ul>
 *   <li>{@code DUPLICATE} (another copy, at another offset, is claimed): {@code ACCEPT} without the sink;
 *   <li>{@code NEW} or {@code RETRY} (delivered again after a lock ran out): the {@link OwnedSink}, then {@code
 *       ACCEPT};
 *   <li>the sink failed: release the claims, <b>then</b> {@code RELEASE} the records, so that their next delivery
 *       is {@code NEW};
 *   <li>{@code commitSync()}.
 * </ul>
 *
 * <p>{@link #stop()} while the sink writes a batch wakes the consumer up: the sink's next renewal throws {@code
 * WakeupException}, and the batch is given back as after a failure, its claims, then its records. That is a
 * shutdown, not a failure: it is logged at {@code INFO}, {@link Listener#sinkFailed} is not called, and the loop
 * ends without the failure back-off. Whether the loop was stopped decides, not the exception, which the sink may
 * wrap.
 *
 * <p>A record delivered again after its lock ran out is {@code RETRY} and written again, by design: the member that
 * had it may have died before writing anything. When that member was only slow, both outputs reach the sink, whose
 * owner key absorbs the second. Renewing the locks while writing ({@link OwnedSink.Renewal}) keeps a slow member's
 * records from going elsewhere.
 *
 * <p>The loop runs on the thread that calls {@link #run()} and closes the consumer when it ends.
 *
 * @param <K> the records' key type
 * @param <V> the records' value type
 */
public final class DedupShareConsumerLoop<K, V> implements Runnable {

    private static final System.Logger LOG = System.getLogger(DedupShareConsumerLoop.class.getName());

    /** What the loop did, for logs, metrics and tests; every method runs on the loop's thread. */
    public interface Listener {
        /** A listener that does nothing. */
        Listener NONE = new Listener() {};

        /** After each poll's claims: how many records were answered each verdict. */
        default void claimed(int fresh, int retried, int duplicates) {}

        /**
         * When the sink threw on a batch, before its claims are released; the loop goes on. Not when {@link #stop()}
         * was called meanwhile: a shutdown is not a failure, even though the sink's renewal then throws.
         */
        default void sinkFailed(Exception failure) {}

        /**
         * After the sink failed on a batch, or the loop was stopped while the sink wrote it: how many of its kept
         * claims were released.
         */
        default void released(int released) {}

        /**
         * Acknowledgements the broker refused on {@code partitions} partitions: the lock had run out and the records
         * went elsewhere (their output, if written, is absorbed by the sink's owner key).
         */
        default void acknowledgementsRefused(int partitions, String reason) {}

        /** After the sink wrote batch number {@code batch} (from 1) and before it is acknowledged. */
        default void beforeAcknowledge(int batch) {}
    }

    private final ShareConsumer<K, V> consumer;
    private final LoopSettings<K, V> settings;
    private final OwnedSink<K, V> sink;
    private final Listener listener;
    private final Acknowledgements<K, V> acks;
    private final LoopControl control = new LoopControl();

    private DedupShareConsumerLoop(
            ShareConsumer<K, V> consumer, LoopSettings<K, V> settings, OwnedSink<K, V> sink, Listener listener) {
        this.consumer = consumer;
        this.settings = settings;
        this.sink = sink;
        this.listener = listener;
        this.acks = new Acknowledgements<>(consumer, listener, System::nanoTime);
    }

    /**
     * A builder for a loop on {@code consumer} (with {@code share.acknowledgement.mode=explicit}) claiming with
     * {@code claims}, e.g. {@code Claims.fromEnvironment("orders")}: the agent the pod's {@code DEDUP_URL} names, in
     * namespace {@code orders}.
     */
    public static <K, V> Builder<K, V> builder(ShareConsumer<K, V> consumer, Claims claims) {
        return new Builder<>(consumer, claims);
    }

    /**
     * Subscribes to the topics and runs the loop until {@link #stop()}, then closes the consumer.
     *
     * @throws UncheckedIOException when the agent did not answer within the claims' patience, or rejected a call;
     *     nothing was skipped: the records not acknowledged are delivered again
     * @throws IllegalArgumentException when a record has no id (a missing header: {@link MessageIds#header})
     */
    @Override
    public void run() {
        control.run(
                () -> consumer.subscribe(settings.topics),
                batches -> handle(consumer.poll(settings.pollTimeout), batches),
                consumer::close);
    }

    /** Claims, writes and acknowledges one poll's records; returns the number of batches written so far. */
    private int handle(ConsumerRecords<K, V> records, int batches) throws IOException, InterruptedException {
        acks.expire();
        List<ConsumerRecord<K, V>> all = new ArrayList<>(records.count());
        List<Item> items = new ArrayList<>(records.count());
        for (ConsumerRecord<K, V> r : records) {
            if (!acks.acknowledgedIfDecided(r)) {
                all.add(r);
                items.add(settings.item(r));
            }
        }
        if (all.isEmpty()) {
            if (!records.isEmpty()) {
                acks.commit();
            }
            return batches;
        }
        List<Verdict> verdicts = settings.claims.claim(items);
        List<Delivery<K, V>> kept = new ArrayList<>();
        List<Item> keptItems = new ArrayList<>();
        int fresh = 0;
        for (int i = 0; i < all.size(); i++) {
            ConsumerRecord<K, V> r = all.get(i);
            if (verdicts.get(i) == Verdict.DUPLICATE) {
                consumer.acknowledge(r, AcknowledgeType.ACCEPT); // another copy is (being) written
                continue;
            }
            fresh += verdicts.get(i) == Verdict.NEW ? 1 : 0;
            Item item = items.get(i);
            kept.add(
                    new Delivery<>(r, item.id(), item.owner(), r.deliveryCount().orElse((short) 1)));
            keptItems.add(item);
        }
        listener.claimed(fresh, kept.size() - fresh, all.size() - kept.size());
        acks.holding(kept);
        AcknowledgeType outcome = AcknowledgeType.ACCEPT;
        try {
            sink.write(kept, acks::renew);
            listener.beforeAcknowledge(++batches);
        } catch (Exception failed) {
            // stop() wakes the consumer up, and a renewal's poll or commit then throws through the sink, which may
            // wrap it: the flag, not the exception, tells a shutdown from a failure.
            if (!control.running()) {
                LOG.log(
                        System.Logger.Level.INFO,
                        "the loop was stopped while the sink wrote a batch of " + kept.size()
                                + " records: giving back their claims, then the records");
            } else {
                LOG.log(
                        System.Logger.Level.WARNING,
                        "the sink failed on a batch of " + kept.size()
                                + " records: releasing their claims, then the records",
                        failed);
                listener.sinkFailed(failed);
            }
            // first the claims, so that the redelivery is NEW
            listener.released(LoopSettings.release(settings.claims, keptItems, failed));
            outcome = AcknowledgeType.RELEASE;
        }
        acks.acknowledge(kept, outcome);
        commit();
        if (outcome == AcknowledgeType.RELEASE && control.running()) {
            settings.backOff(control.stopping());
        }
        return batches;
    }

    /**
     * Commits the batch's outcome, once more after a pending wakeup ({@link LoopControl#commit}), whether or not the
     * client had sent the acknowledgements before throwing.
     */
    private void commit() {
        LoopControl.commit(acks::commit);
    }

    /**
     * Ends the loop and waits, up to 30 s, until {@link #run()} has closed the consumer, so that a shutdown hook
     * ({@code addShutdownHook(new Thread(loop::stop))}) keeps the JVM until then. A batch the sink is writing is given
     * back, its claims, then its records; a record a renewal had not taken back yet the broker gives back when the
     * consumer closes, or when its lock runs out.
     */
    public void stop() {
        stop(LoopControl.DEFAULT_STOP_TIMEOUT);
    }

    /**
     * Ends the loop and waits up to {@code timeout} until {@link #run()} has closed the consumer.
     *
     * @return true when the loop has ended (or never ran); false when the time ran out, or when called on the loop's
     *     own thread (from the sink or a listener), which cannot wait for itself
     */
    public boolean stop(java.time.Duration timeout) {
        return control.stop(timeout, consumer::wakeup);
    }

    /**
     * Settings of a {@link DedupShareConsumerLoop}; {@link #topics}, an id ({@link #idFromHeader} or {@link #id}) and
     * a {@link #sink} are required. A value is checked where it is set;
     * {@link #build()} checks that the required ones were given.
     *
     * @param <K> the records' key type
     * @param <V> the records' value type
     */
    public static final class Builder<K, V> extends LoopBuilder<K, V, OwnedSink<K, V>, Listener, Builder<K, V>> {
        private final ShareConsumer<K, V> consumer;

        private Builder(ShareConsumer<K, V> consumer, Claims claims) {
            super("DedupShareConsumerLoop", consumer, "consumer", claims, Listener.NONE);
            this.consumer = consumer;
        }

        /** Where the kept records go; it applies each owner once. */
        public Builder<K, V> sink(OwnedSink<K, V> sink) {
            this.sink = LoopSettings.nonNull(sink, loop(), "sink");
            return this;
        }

        /**
         * The loop.
         *
         * @throws IllegalArgumentException naming the setting that is missing or not valid
         */
        public DedupShareConsumerLoop<K, V> build() {
            LoopSettings<K, V> settings = settings();
            return new DedupShareConsumerLoop<>(
                    consumer, settings, LoopSettings.required(sink, loop(), "sink"), listener);
        }
    }
}
