package dev.dedup.kafka;

import java.util.List;

/**
 * Where {@link DedupShareConsumerLoop} hands the records it keeps: the sink applies <b>each owner once</b>, storing
 * the owners it applied in the same transaction as the output.
 *
 * <p>Why by owner: in a share group several members read one partition in no order and nothing is committed per
 * partition, so there is no offset to compare with. A record is delivered again when its acquisition lock runs out
 * or it is released; the agent then answers {@code RETRY} (the same copy, the same owner, was claimed before) and
 * the loop hands it to the sink again, because the member that had it may have died before writing anything. When
 * that member was only slow, both write; the owner key stored with the output absorbs the second.
 *
 * @param <K> the records' key type
 * @param <V> the records' value type
 */
@FunctionalInterface
public interface OwnedSink<K, V> {

    /**
     * Applies the output of each kept record whose owner it has not applied yet, in one transaction with the
     * owners; throws to have the records delivered again.
     *
     * @param kept the records answered {@code NEW} or {@code RETRY}, with their owners and delivery counts
     * @param renewal extends the kept records' acquisition locks; call it during a long write, no more often than
     *     a third of {@code group.share.record.lock.duration.ms}, so that the records are not delivered elsewhere
     * @throws Exception when the output could not be written: the loop releases the claims, then the records
     *     ({@code AcknowledgeType.RELEASE}), and their next delivery is {@code NEW}
     */
    void write(List<Delivery<K, V>> kept, Renewal renewal) throws Exception;

    /** Extends the acquisition locks of the records being written ({@code AcknowledgeType.RENEW}, KIP-1222). */
    @FunctionalInterface
    interface Renewal {
        /**
         * Renews the locks of the batch's records now; from the thread that runs the loop. Other records the renewal
         * receives are renewed with the batch and handed to a later write, never given back unprocessed. A record
         * whose renewal the broker refused (its lock had run out) is no longer renewed: its next delivery is a new
         * one.
         *
         * @throws org.apache.kafka.common.errors.WakeupException when the loop was stopped meanwhile: let it through,
         *     or wrap it; the loop gives the batch back and ends
         */
        void renew();
    }
}
