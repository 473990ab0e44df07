package dev.dedup.wire;

import java.util.Objects;

/** One message as a worker sends it: its id and the owner of this copy (e.g. Kafka {@code partition:offset}). */
public record Item(String id, String owner) {
    public Item {
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(owner, "owner");
    }
}
