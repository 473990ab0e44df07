package dev.dedup.loadtest.workload;

/**
 * The time producers stamp into messages. Message {@code i} of a run was produced at second
 * {@code i / EVENTS_PER_SECOND} of the run's event time: Tapjoy's rate of 2,000,000 messages a minute, so
 * that a layout keyed by event time (Tapjoy's buckets of 100 per second and slice) sees the bucket sizes it
 * was planned for. Every copy of a message carries its original's time.
 */
public final class EventTime {

    /** 2,000,000 messages a minute, rounded up. */
    public static final int EVENTS_PER_SECOND = 33_334;

    private EventTime() {}

    public static int secondOf(long index) {
        return (int) (index / EVENTS_PER_SECOND);
    }
}
