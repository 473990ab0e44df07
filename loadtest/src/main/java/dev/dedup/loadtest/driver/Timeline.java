package dev.dedup.loadtest.driver;

import java.util.Arrays;

/**
 * Ids answered per tick of {@link #TICK_MILLIS} since a pass started: throughput over time, for the report.
 * One per worker (not thread-safe); {@link #add} merges them.
 */
public final class Timeline {

    public static final int TICK_MILLIS = 100;

    private long[] ids = new long[64];
    private int ticks;

    void record(long nanosSinceStart, int answered) {
        int tick = (int) Math.max(0, nanosSinceStart / (TICK_MILLIS * 1_000_000L));
        if (tick >= ids.length) {
            ids = Arrays.copyOf(ids, Math.max(tick + 1, ids.length * 2));
        }
        ids[tick] += answered;
        ticks = Math.max(ticks, tick + 1);
    }

    public void add(Timeline other) {
        if (other.ticks > ids.length) {
            ids = Arrays.copyOf(ids, other.ticks);
        }
        for (int t = 0; t < other.ticks; t++) {
            ids[t] += other.ids[t];
        }
        ticks = Math.max(ticks, other.ticks);
    }

    /** Ids answered in each tick, from the first to the last with an answer. */
    public long[] idsPerTick() {
        return Arrays.copyOf(ids, ticks);
    }
}
