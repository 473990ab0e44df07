package dev.dedup.agent.store.embedded;

import java.util.Arrays;

/**
 * New claims per second over the last minute, by the store's clock: sixty one-second counters in a ring.
 * It drives the retention estimate in the store's stats, which only needs a rough, steady figure, so
 * one monitor per update (once per batch, not per item) is plenty.
 */
final class ClaimRate {

    static final int SECONDS = 60;

    private final long[] counts = new long[SECONDS];
    private final long[] secondOf = new long[SECONDS];
    private final long startSecond;

    ClaimRate(long nowMillis) {
        this.startSecond = Math.floorDiv(nowMillis, 1000L);
        Arrays.fill(secondOf, Long.MIN_VALUE);
    }

    synchronized void record(long count, long nowMillis) {
        if (count == 0) {
            return;
        }
        long second = Math.floorDiv(nowMillis, 1000L);
        int i = (int) Math.floorMod(second, (long) SECONDS);
        if (secondOf[i] != second) {
            secondOf[i] = second;
            counts[i] = 0;
        }
        counts[i] += count;
    }

    /**
     * The mean rate over the last {@value #SECONDS} seconds, or over the time since this store opened if
     * that is shorter (at least one second, so a fresh store does not report a burst as a huge rate).
     */
    synchronized double perSecond(long nowMillis) {
        long now = Math.floorDiv(nowMillis, 1000L);
        long sum = 0;
        for (int i = 0; i < SECONDS; i++) {
            if (secondOf[i] > now - SECONDS && secondOf[i] <= now) {
                sum += counts[i];
            }
        }
        long span = Math.max(1, Math.min(SECONDS, now - startSecond + 1));
        return (double) sum / span;
    }
}
