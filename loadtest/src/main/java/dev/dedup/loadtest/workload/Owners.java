package dev.dedup.loadtest.workload;

/**
 * The owner of a copy of message {@code i}, Kafka-style {@code p<partition>:<offset>}. Copy {@link #ORIGINAL}
 * is the first write of the message; copy {@link #SECOND_WRITE} is the producer writing it again, which lands
 * at another offset of the same partition.
 */
public final class Owners {

    /** Partitions the ids are spread over. */
    public static final int PARTITIONS = 16;
    /** The copy claimed by cold and retry. */
    public static final int ORIGINAL = 0;
    /** Another copy of the same message: the duplicate scenario's owner. */
    public static final int SECOND_WRITE = 1;

    private static final long SECOND_WRITE_SHIFT = 1L << 40;

    private Owners() {}

    public static String of(int copy, long index) {
        long partition = index % PARTITIONS;
        long offset = index / PARTITIONS;
        if (copy == SECOND_WRITE) {
            offset += SECOND_WRITE_SHIFT;
        } else if (copy != ORIGINAL) {
            throw new IllegalArgumentException("no copy " + copy);
        }
        return "p" + partition + ":" + offset;
    }
}
