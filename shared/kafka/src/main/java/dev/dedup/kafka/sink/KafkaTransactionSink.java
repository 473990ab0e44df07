package dev.dedup.kafka.sink;

import dev.dedup.kafka.SinkStoppedException;
import dev.dedup.kafka.TransactionalSink;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.Future;
import java.util.function.Function;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.InvalidProducerEpochException;
import org.apache.kafka.common.errors.ProducerFencedException;
import org.apache.kafka.common.errors.TimeoutException;

/**
 * A ready {@link TransactionalSink} from Kafka to Kafka: each batch's output records and the consumer's next offsets
 * in one Kafka transaction ({@code sendOffsetsToTransaction}), so that a {@code read_committed} reader of the output
 * sees each kept record's output once. Kafka's exactly-once alone keeps a record processed once; with the agent's
 * claims the other copies of a message (sent twice by an application, by two producers, re-published upstream) are
 * dropped as well.
 *
 * <pre>{@code
 * KafkaProducer<String, byte[]> producer = new KafkaProducer<>(props); // transactional.id set, one per consumer
 * KafkaTransactionSink<String, byte[], String, byte[]> sink = KafkaTransactionSink.builder(producer, consumer)
 *         .output(r -> new ProducerRecord<>("clicks-unique", r.key(), r.value()))
 *         .build(); // calls producer.initTransactions()
 * }</pre>
 *
 * <p>A {@code RETRY} record was read before by the same owner, whose transaction did not commit (its offsets would have
 * committed with it): its output is produced again, and the aborted attempt's output is never seen by a {@code
 * read_committed} reader. When the transaction fails (the consumer lost its partitions to a rebalance and its group
 * generation is fenced; the broker unreachable) it is aborted and the loop reads the batch again; a commit that timed
 * out is committed again, not aborted. A producer fenced by another with the same {@code transactional.id} cannot go
 * on: the sink throws {@link SinkStoppedException} and the loop ends.
 *
 * @param <K> the consumed records' key type
 * @param <V> the consumed records' value type
 * @param <KO> the output records' key type
 * @param <VO> the output records' value type
 */
public final class KafkaTransactionSink<K, V, KO, VO> implements TransactionalSink<K, V> {

    /** Commits tried before a timed-out one is given up. */
    private static final int COMMIT_ATTEMPTS = 3;

    private final Producer<KO, VO> producer;
    private final Consumer<K, V> consumer;
    private final Function<ConsumerRecord<K, V>, List<ProducerRecord<KO, VO>>> output;

    private KafkaTransactionSink(Builder<K, V, KO, VO> b) {
        this.producer = b.producer;
        this.consumer = b.consumer;
        this.output = b.output;
    }

    /**
     * A builder of a sink that produces with {@code producer} (its {@code transactional.id} set; the sink initializes
     * its transactions) and commits the offsets of {@code consumer}'s group, the consumer the loop polls.
     */
    public static <K, V, KO, VO> Builder<K, V, KO, VO> builder(Producer<KO, VO> producer, Consumer<K, V> consumer) {
        return new Builder<>(producer, consumer);
    }

    @Override
    public void write(List<ConsumerRecord<K, V>> kept, Map<TopicPartition, Long> nextOffsets) {
        producer.beginTransaction();
        try {
            List<Future<RecordMetadata>> sent = new java.util.ArrayList<>();
            for (ConsumerRecord<K, V> r : kept) {
                for (ProducerRecord<KO, VO> out : output.apply(r)) {
                    sent.add(producer.send(out));
                }
            }
            Map<TopicPartition, OffsetAndMetadata> offsets = new HashMap<>();
            nextOffsets.forEach((tp, o) -> offsets.put(tp, new OffsetAndMetadata(o)));
            producer.sendOffsetsToTransaction(offsets, consumer.groupMetadata());
            commit();
        } catch (ProducerFencedException | InvalidProducerEpochException fenced) {
            // another producer with this transactional.id took over: its start aborted this transaction
            throw new SinkStoppedException(
                    "the producer was fenced by another with its transactional.id: this"
                            + " consumer cannot write any longer",
                    fenced);
        } catch (RuntimeException e) {
            abort(e);
            throw e;
        }
    }

    /**
     * Commits, flushing the sends first (a failed send fails the commit). A commit that timed out may still complete:
     * it is committed again, as Kafka's producer asks, rather than aborted and the batch read again and produced twice.
     */
    private void commit() {
        for (int attempt = 1; ; attempt++) {
            try {
                producer.commitTransaction();
                return;
            } catch (TimeoutException e) {
                if (attempt == COMMIT_ATTEMPTS) {
                    throw e;
                }
            }
        }
    }

    private void abort(RuntimeException cause) {
        try {
            producer.abortTransaction();
        } catch (RuntimeException e) {
            cause.addSuppressed(e);
        }
    }

    /**
     * Settings of a {@link KafkaTransactionSink}; {@link #output} is required.
     *
     * @param <K> the consumed records' key type
     * @param <V> the consumed records' value type
     * @param <KO> the output records' key type
     * @param <VO> the output records' value type
     */
    public static final class Builder<K, V, KO, VO> {
        private final Producer<KO, VO> producer;
        private final Consumer<K, V> consumer;
        private Function<ConsumerRecord<K, V>, List<ProducerRecord<KO, VO>>> output;

        private Builder(Producer<KO, VO> producer, Consumer<K, V> consumer) {
            this.producer = Objects.requireNonNull(producer, "producer");
            this.consumer = Objects.requireNonNull(consumer, "consumer");
        }

        /** The output record of each kept record. */
        public Builder<K, V, KO, VO> output(Function<ConsumerRecord<K, V>, ProducerRecord<KO, VO>> one) {
            Objects.requireNonNull(one, "output");
            this.output = r -> List.of(one.apply(r));
            return this;
        }

        /** The output records of each kept record: none, one or several. */
        public Builder<K, V, KO, VO> outputs(Function<ConsumerRecord<K, V>, List<ProducerRecord<KO, VO>>> many) {
            this.output = Objects.requireNonNull(many, "outputs");
            return this;
        }

        /**
         * The sink; initializes the producer's transactions (which also aborts what a previous producer of the same
         * {@code transactional.id} left open).
         *
         * @throws IllegalArgumentException when no output was given
         */
        public KafkaTransactionSink<K, V, KO, VO> build() {
            if (output == null) {
                throw new IllegalArgumentException(
                        "KafkaTransactionSink: output is required: the record a kept record becomes");
            }
            producer.initTransactions();
            return new KafkaTransactionSink<>(this);
        }
    }
}
