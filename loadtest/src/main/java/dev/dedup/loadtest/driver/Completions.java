package dev.dedup.loadtest.driver;

import java.util.BitSet;

/**
 * Which batches of a pass have been answered (or failed), so that a batch repeating ids of an earlier one is
 * sent only after that one: then the order the ledger assumed is the order the store saw. Shared by the
 * workers of a pass; cheap enough at thousands of batches a second.
 */
public final class Completions {

    private final BitSet done = new BitSet();
    private int allBelow;

    public synchronized void complete(int batch) {
        done.set(batch);
        allBelow = done.nextClearBit(allBelow);
    }

    /**
     * True when batch {@code batch} and every batch before it are done; always true for -1. A batch's
     * {@code dependsOn} is the latest earlier batch holding one of its ids, but other ids may sit in earlier
     * batches still in flight: only "all up to" is safe.
     */
    public synchronized boolean allDoneUpTo(int batch) {
        return batch < allBelow;
    }
}
