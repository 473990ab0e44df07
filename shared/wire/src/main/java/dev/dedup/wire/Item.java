package dev.dedup.wire;

import java.util.Objects;

/**
 * One message as a worker sends it: its id, the owner of this copy (e.g. Kafka {@code topic:partition:offset})
 * and, optionally, the message's event time in epoch seconds (e.g. the Kafka record's timestamp / 1000;
 * {@link Limits#NO_EVENT_TIME} for none). Every copy of a message must carry the same event time.
 */
public final class Item {

    private final String id;
    private final String owner;
    private final long eventSecond;

    public Item(String id, String owner, long eventSecond) {
        this.id = Objects.requireNonNull(id, "id");
        this.owner = Objects.requireNonNull(owner, "owner");
        if (eventSecond < Limits.NO_EVENT_TIME || eventSecond > Limits.MAX_EVENT_SECOND) {
            throw new IllegalArgumentException(
                    "eventSecond: " + eventSecond + " is not epoch seconds from 1 to " + Limits.MAX_EVENT_SECOND);
        }
        this.eventSecond = eventSecond;
    }

    /** An item without an event time. */
    public Item(String id, String owner) {
        this(id, owner, Limits.NO_EVENT_TIME);
    }

    public String id() {
        return id;
    }

    public String owner() {
        return owner;
    }

    /** The event time in epoch seconds, or {@link Limits#NO_EVENT_TIME}. */
    public long eventSecond() {
        return eventSecond;
    }

    public boolean hasEventTime() {
        return eventSecond != Limits.NO_EVENT_TIME;
    }

    @Override
    public boolean equals(Object o) {
        if (this == o) {
            return true;
        }
        if (!(o instanceof Item)) {
            return false;
        }
        Item other = (Item) o;
        return eventSecond == other.eventSecond && id.equals(other.id) && owner.equals(other.owner);
    }

    @Override
    public int hashCode() {
        return 31 * (31 * id.hashCode() + owner.hashCode()) + Long.hashCode(eventSecond);
    }

    @Override
    public String toString() {
        return "Item[id=" + id + ", owner=" + owner + ", eventSecond=" + eventSecond + "]";
    }
}
