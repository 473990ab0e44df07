package dev.dedup.loadtest.driver;

import java.util.concurrent.atomic.LongAdder;

/** Counters the workers bump and the progress line reads; cumulative over the whole run. */
public final class Progress {

    private final LongAdder ids = new LongAdder();
    private final LongAdder errors = new LongAdder();
    private volatile String phase = "starting";
    private volatile long phaseIds;
    private volatile long phaseBase;

    /** A new phase (a scenario being prepared or sent) of {@code totalIds} ids starts. */
    public void phase(String name, long totalIds) {
        phaseBase = ids.sum();
        phaseIds = totalIds;
        phase = name;
    }

    void answered(int items) {
        ids.add(items);
    }

    void failed() {
        errors.increment();
    }

    /** Ids answered since the run started. */
    public long ids() {
        return ids.sum();
    }

    public long errors() {
        return errors.sum();
    }

    public String phaseName() {
        return phase;
    }

    public long phaseDone() {
        return ids.sum() - phaseBase;
    }

    public long phaseTotal() {
        return phaseIds;
    }
}
