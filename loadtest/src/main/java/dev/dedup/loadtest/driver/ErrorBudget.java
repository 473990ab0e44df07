package dev.dedup.loadtest.driver;

import java.util.concurrent.atomic.AtomicLong;

/** The failed requests a whole run tolerates ({@code --max-errors}); once exceeded, workers stop taking batches. */
public final class ErrorBudget {

    private final long maxErrors;
    private final AtomicLong errors = new AtomicLong();

    public ErrorBudget(long maxErrors) {
        this.maxErrors = maxErrors;
    }

    void spend() {
        errors.incrementAndGet();
    }

    public boolean exceeded() {
        return errors.get() > maxErrors;
    }

    public long errors() {
        return errors.get();
    }

    public long maxErrors() {
        return maxErrors;
    }
}
