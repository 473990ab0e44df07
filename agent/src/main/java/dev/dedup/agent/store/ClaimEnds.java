package dev.dedup.agent.store;

import dev.dedup.codec.Batch;

/**
 * When a claim ends. Without an event time, a window after the claim; with one, a window after the
 * message's event time, an event time more than a window ahead of the clock counting as a window ahead
 * (so that no claim is kept longer than two windows, whatever a producer's clock says). The end depends
 * only on the event second for every realistic clock, so every claim of one second ends together.
 */
public final class ClaimEnds {

    private ClaimEnds() {
    }

    /** Epoch millis at which item {@code i}'s claim, made at {@code nowMillis}, ends. */
    public static long endMillis(Batch batch, int i, long nowMillis, long windowMillis) {
        long second = batch.eventSecond(i);
        if (second == Batch.NO_EVENT_TIME) {
            return nowMillis + windowMillis;
        }
        return endOfEventSecond(second, nowMillis, windowMillis);
    }

    /** The epoch second at which claims of event second {@code second} end, rounded up. */
    public static long endSecond(long second, long nowMillis, long windowMillis) {
        return -Math.floorDiv(-endOfEventSecond(second, nowMillis, windowMillis), 1000L);
    }

    private static long endOfEventSecond(long second, long nowMillis, long windowMillis) {
        return Math.min(second * 1000, nowMillis + windowMillis) + windowMillis;
    }
}
