package dev.dedup.spark;

import dev.dedup.client.Owners;
import dev.dedup.wire.Item;
import dev.dedup.wire.Limits;
import java.io.Serializable;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.apache.spark.sql.Row;

/**
 * Reads a row's claim: its id, its owner and its event time, from column positions the driver resolved. Runs on the
 * executors; every failure names the column or header and the row's owner, so that a task's error says which record
 * cannot be deduplicated and why.
 */
final class RowReader implements Serializable {

    private static final long serialVersionUID = 1L;

    /** Where the owner comes from. */
    enum OwnerKind {
        /** {@code topic, partition, offset} of the Kafka source: {@link Owners#kafka}. */
        KAFKA,
        /** stream, shard id and sequence number of a Kinesis source: {@link Owners#kinesis}. */
        KINESIS,
        /** a string column the caller built. */
        COLUMN
    }

    private final String idHeader; // null: the id is the string at idIndex
    private final String idName; // what the error messages call the id's source
    private final int idIndex;
    private final OwnerKind ownerKind;
    private final int[] ownerIndexes;
    private final String[] ownerNames;
    private final int eventTimeIndex; // -1: none

    /**
     * @param idHeader  the Kafka header holding the id, read from the {@code headers} column at {@code idIndex}; or
     *                  null when the column at {@code idIndex} holds the id as a string
     * @param idName    the id column's name, or the header's, for messages
     */
    RowReader(
            String idHeader,
            String idName,
            int idIndex,
            OwnerKind ownerKind,
            int[] ownerIndexes,
            String[] ownerNames,
            int eventTimeIndex) {
        this.idHeader = idHeader;
        this.idName = idName;
        this.idIndex = idIndex;
        this.ownerKind = ownerKind;
        this.ownerIndexes = ownerIndexes.clone();
        this.ownerNames = ownerNames.clone();
        this.eventTimeIndex = eventTimeIndex;
    }

    /** The row's claim. */
    Item item(Row row) {
        String owner = owner(row);
        return new Item(id(row, owner), owner, eventSecond(row, owner));
    }

    String owner(Row row) {
        for (int i = 0; i < ownerIndexes.length; i++) {
            if (row.isNullAt(ownerIndexes[i])) {
                throw new IllegalArgumentException("a row has no " + ownerNames[i]
                        + " (null): its owner, where this copy sits, cannot be written; " + this);
            }
        }
        switch (ownerKind) {
            case KAFKA:
                return Owners.kafka(
                        row.getString(ownerIndexes[0]),
                        ((Number) row.get(ownerIndexes[1])).intValue(),
                        ((Number) row.get(ownerIndexes[2])).longValue());
            case KINESIS:
                return Owners.kinesis(
                        row.getString(ownerIndexes[0]),
                        row.getString(ownerIndexes[1]),
                        String.valueOf(row.get(ownerIndexes[2])));
            case COLUMN:
                String owner = row.getString(ownerIndexes[0]);
                if (owner.isEmpty()) {
                    throw new IllegalArgumentException("a row has an empty owner (" + ownerNames[0] + ")");
                }
                return owner;
            default:
                throw new AssertionError(ownerKind);
        }
    }

    private String id(Row row, String owner) {
        if (idHeader == null) {
            String id = row.isNullAt(idIndex) ? null : row.getString(idIndex);
            if (id == null || id.isEmpty()) {
                throw new IllegalArgumentException("the row at " + owner + " has " + (id == null ? "no" : "an empty")
                        + " id in " + idName + ": it cannot be deduplicated, and neither skipping nor guessing is"
                        + " right");
            }
            return id;
        }
        List<Row> headers = row.isNullAt(idIndex) ? List.of() : row.getList(idIndex);
        for (int i = headers.size() - 1; i >= 0; i--) { // the last, as Kafka's lastHeader takes it
            Row h = headers.get(i);
            if (idHeader.equals(h.getString(0))) {
                byte[] value = h.isNullAt(1) ? null : (byte[]) h.get(1);
                if (value == null || value.length == 0) {
                    break;
                }
                return new String(value, StandardCharsets.UTF_8);
            }
        }
        throw new IllegalArgumentException("the record at " + owner + " has no (or an empty) header " + idHeader
                + ": its producer must set the message's id there");
    }

    private long eventSecond(Row row, String owner) {
        if (eventTimeIndex < 0 || row.isNullAt(eventTimeIndex)) {
            return Limits.NO_EVENT_TIME;
        }
        long second = row.getLong(eventTimeIndex);
        if (second < 1 || second > Limits.MAX_EVENT_SECOND) {
            throw new IllegalArgumentException("the row at " + owner + " has the event time " + second
                    + ", not epoch seconds from 1 to " + Limits.MAX_EVENT_SECOND);
        }
        return second;
    }

    @Override
    public String toString() {
        return "owner from " + String.join(", ", ownerNames) + ", id from "
                + (idHeader == null ? idName : "header " + idHeader);
    }
}
