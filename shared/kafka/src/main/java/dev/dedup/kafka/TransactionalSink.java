package dev.dedup.kafka;

import java.util.Collection;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.TopicPartition;

/**
 * Where {@link DedupConsumerLoop} hands the records it keeps: the sink writes their output <b>and the next offsets in
 * one transaction</b>, so that what it has applied and where the stream stands can never disagree.
 *
 * <p>Why the offsets belong in the sink: the loop commits offsets to Kafka after {@link #write} returns. A crash or
 * a rebalance between the two leaves the output written and the offsets not committed; whoever reads the partition
 * next reads those records again, and the agent answers {@code RETRY}: the same copies (same owners) were claimed
 * before. The agent cannot know whether their output was written (the consumer may have died before or after its
 * transaction), so it does not say {@code DUPLICATE}, which would lose the records when it was not. The loop
 * therefore hands {@code RETRY} records to the sink like {@code NEW} ones, and only the sink can tell: a record
 * below the next offset it stored for its partition was applied by an earlier transaction and is skipped.
 *
 * <pre>{@code
 * public void write(List<ConsumerRecord<String, byte[]>> kept, Map<TopicPartition, Long> nextOffsets) throws SQLException {
 *     // in one transaction: read the stored next offsets (FOR UPDATE), apply the kept records at or past them,
 *     // store nextOffsets, commit
 * }
 * }</pre>
 *
 * @param <K> the records' key type
 * @param <V> the records' value type
 */
@FunctionalInterface
public interface TransactionalSink<K, V> {

    /**
     * Writes one batch's output and {@code nextOffsets} in one transaction; throws to have the batch read again.
     *
     * @param kept the records answered {@code NEW} or {@code RETRY}, in poll order (per partition, in offset order);
     *     the other copies of their messages ({@code DUPLICATE}) are left out
     * @param nextOffsets per partition of the batch, one past the last offset read, duplicates included: store each
     *     unless a greater one is stored already
     * @throws Exception when the output could not be written: the loop releases the kept records' claims and seeks
     *     back to the batch's first offsets, and the records are delivered again ({@code NEW}, or {@code DUPLICATE}
     *     when another copy was claimed meanwhile)
     */
    void write(List<ConsumerRecord<K, V>> kept, Map<TopicPartition, Long> nextOffsets) throws Exception;

    /**
     * The next offsets this sink stored for {@code partitions}, where the loop seeks when they are assigned to it.
     * Kafka's committed offset lags the sink whenever a consumer died between its transaction and its commit; seeking
     * to the sink's offset spares reading, claiming and skipping those records again. A partition left out of the
     * map (and every partition, by default) is read from Kafka's committed offset, which is correct too: the records
     * come back {@code RETRY} and {@link #write} skips them.
     *
     * @param partitions the partitions just assigned to this consumer
     * @throws Exception when they could not be read: the loop ends ({@link DedupConsumerLoop#run()} throws)
     */
    default Map<TopicPartition, Long> storedOffsets(Collection<TopicPartition> partitions) throws Exception {
        return Collections.emptyMap();
    }
}
