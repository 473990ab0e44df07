package dev.dedup.agent.testing;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

/** A clock of epoch milliseconds that moves only when told. */
public final class FakeClock implements LongSupplier {

    private final AtomicLong millis;

    public FakeClock(long startMillis) {
        this.millis = new AtomicLong(startMillis);
    }

    @Override
    public long getAsLong() {
        return millis.get();
    }

    public void advance(Duration d) {
        millis.addAndGet(d.toMillis());
    }
}
