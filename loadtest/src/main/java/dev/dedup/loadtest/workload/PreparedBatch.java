package dev.dedup.loadtest.workload;

/**
 * One request, encoded before the timed part starts, with the verdict code the {@link Ledger} expects for
 * each of its items.
 */
public record PreparedBatch(byte[] body, byte[] expected) {

    public int items() {
        return expected.length;
    }
}
