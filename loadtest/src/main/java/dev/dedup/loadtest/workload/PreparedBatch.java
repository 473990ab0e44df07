package dev.dedup.loadtest.workload;

/**
 * One request, encoded before the timed part starts, with the verdict code the {@link Ledger} expects for
 * each of its items.
 *
 * @param body      what the transport sends
 * @param expected  one verdict code per item
 * @param dependsOn the last earlier batch of the same pass holding a copy of one of these ids, or -1: this
 *                  batch must not be sent before that one is answered, or the ledger's order would not be
 *                  the order the store saw
 */
public record PreparedBatch(byte[] body, byte[] expected, int dependsOn) {

    public int items() {
        return expected.length;
    }
}
