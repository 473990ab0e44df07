package dev.dedup.wire;

import java.util.Objects;

/**
 * One message as a worker sends it: its id, the owner of this copy (e.g. Kafka {@code topic:partition:offset})
 * and, optionally, the message's event time in epoch seconds (e.g. the Kafka record's timestamp / 1000;
 * {@link Limits#NO_EVENT_TIME} for none). Every copy of a message must carry the same event time.
 */
public record Item(String id, String owner, long eventSecond) {
    public Item {
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(owner, "owner");
        if (eventSecond < Limits.NO_EVENT_TIME || eventSecond > Limits.MAX_EVENT_SECOND) {
            throw new IllegalArgumentException(
                    "eventSecond: " + eventSecond + " is not epoch seconds from 1 to " + Limits.MAX_EVENT_SECOND);
        }
    }

    /** An item without an event time. */
    public Item(String id, String owner) {
        this(id, owner, Limits.NO_EVENT_TIME);
    }

    public boolean hasEventTime() {
        return eventSecond != Limits.NO_EVENT_TIME;
    }
}
