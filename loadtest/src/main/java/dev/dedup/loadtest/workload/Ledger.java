package dev.dedup.loadtest.workload;

import dev.dedup.wire.Verdict;
import java.util.Arrays;

/**
 * Decides what every copy a run sends should be answered, from the copies sent before it: the first copy of
 * an id is {@code new}; a later copy with the first copy's owner is {@code retry}; a later copy with another
 * owner is {@code duplicate}. It follows the order in which copies are prepared, which is the order they are
 * sent as long as no two requests in flight carry the same id (true of every scenario here).
 *
 * <p>It keeps one byte per id. Not thread-safe: a run prepares its batches on one thread.
 */
public final class Ledger {

    private static final byte NONE = -1;

    private final byte[] firstCopy;

    /** A ledger of a run that has sent nothing yet. */
    public Ledger(int ids) {
        firstCopy = new byte[ids];
        Arrays.fill(firstCopy, NONE);
    }

    /**
     * A ledger of a run that continues an earlier one (same run id): every id is taken to be already
     * claimed by {@code copy}.
     */
    public static Ledger claimedEarlier(int ids, int copy) {
        Ledger ledger = new Ledger(ids);
        Arrays.fill(ledger.firstCopy, (byte) copy);
        return ledger;
    }

    public int size() {
        return firstCopy.length;
    }

    /** Records that copy {@code copy} of id {@code index} is sent next, and returns the verdict it should get. */
    public Verdict send(int index, int copy) {
        byte first = firstCopy[index];
        if (first == NONE) {
            firstCopy[index] = (byte) copy;
            return Verdict.NEW;
        }
        return first == copy ? Verdict.RETRY : Verdict.DUPLICATE;
    }
}
