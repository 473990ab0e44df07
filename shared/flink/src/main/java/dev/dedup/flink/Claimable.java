package dev.dedup.flink;

import java.util.Objects;

/**
 * A record with what its claim needs: the message's id, the record's owner ({@code topic:partition:offset} for
 * Kafka, {@link dev.dedup.client.Owners}), its timestamp in milliseconds and the user's value. {@link
 * ClaimableDeserializer} makes them from a Kafka source; {@link Dedup} claims them and forwards the values.
 *
 * <p>A Flink POJO (public no-argument constructor, getters and setters) so that Flink serializes it when a job puts
 * a network exchange between the source and the operator; the deserializer gives its type with the value's.
 *
 * @param <T> the user's value type
 */
public final class Claimable<T> {

    /** A timestamp that says the record has none (Kafka's {@code RecordBatch.NO_TIMESTAMP}). */
    public static final long NO_TIMESTAMP = -1L;

    private String id;
    private String owner;
    private long timestamp = NO_TIMESTAMP;
    private T value;

    /** For Flink's serializer; use {@link #Claimable(String, String, long, Object)}. */
    public Claimable() {}

    /**
     * @param id        the message's id (the same in every copy of the message)
     * @param owner     the record's place in its source (different for each copy)
     * @param timestamp the record's timestamp in milliseconds, {@link #NO_TIMESTAMP} when it has none
     * @param value     the user's value
     */
    public Claimable(String id, String owner, long timestamp, T value) {
        this.id = id;
        this.owner = owner;
        this.timestamp = timestamp;
        this.value = value;
    }

    public String getId() {
        return id;
    }

    public void setId(String id) {
        this.id = id;
    }

    public String getOwner() {
        return owner;
    }

    public void setOwner(String owner) {
        this.owner = owner;
    }

    public long getTimestamp() {
        return timestamp;
    }

    public void setTimestamp(long timestamp) {
        this.timestamp = timestamp;
    }

    public T getValue() {
        return value;
    }

    public void setValue(T value) {
        this.value = value;
    }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof Claimable)) {
            return false;
        }
        Claimable<?> c = (Claimable<?>) o;
        return timestamp == c.timestamp
                && Objects.equals(id, c.id)
                && Objects.equals(owner, c.owner)
                && Objects.equals(value, c.value);
    }

    @Override
    public int hashCode() {
        return Objects.hash(id, owner, timestamp, value);
    }

    @Override
    public String toString() {
        return "Claimable{id=" + id + ", owner=" + owner + ", timestamp=" + timestamp + "}";
    }
}
