package dev.dedup.kafka;

import org.apache.kafka.clients.consumer.ConsumerRecord;

/**
 * A record a share-group member keeps, as {@link OwnedSink} receives it: the record, its message id, its owner
 * ({@code topic:partition:offset}, the key an {@link OwnedSink} applies once) and how many times the broker has
 * delivered it.
 *
 * @param <K> the record's key type
 * @param <V> the record's value type
 */
public final class Delivery<K, V> {

    private final ConsumerRecord<K, V> record;
    private final String id;
    private final String owner;
    private final int deliveryCount;

    Delivery(ConsumerRecord<K, V> record, String id, String owner, int deliveryCount) {
        this.record = record;
        this.id = id;
        this.owner = owner;
        this.deliveryCount = deliveryCount;
    }

    /** The record as the broker delivered it. */
    public ConsumerRecord<K, V> record() {
        return record;
    }

    /** The message id the loop claimed it with. */
    public String id() {
        return id;
    }

    /** Where this copy sits, {@code topic:partition:offset} ({@link dev.dedup.client.Owners#kafka}). */
    public String owner() {
        return owner;
    }

    /** 1 on the first delivery; more after a lock ran out or the record was released. */
    public int deliveryCount() {
        return deliveryCount;
    }

    @Override
    public String toString() {
        return owner + " (id " + id + ", delivery " + deliveryCount + ")";
    }
}
