package dev.dedup.loadtest.workload;

import dev.dedup.wire.Verdict;

/**
 * Counts the verdicts received and how they compare with what the {@link Ledger} expected:
 * <ul>
 * <li>a <em>false drop</em> is a first copy (nobody claimed the id before) answered {@code duplicate}: the
 * worker would skip a message nobody processed, i.e. data loss;</li>
 * <li>a <em>missed duplicate</em> is a later copy by another owner answered {@code new}: it would be processed
 * twice;</li>
 * <li>any other mismatch is <em>unexpected</em> (e.g. {@code new} where {@code retry} was expected: the store
 * forgot the claim).</li>
 * </ul>
 * A store that only tells duplicates apart from the rest (Tapjoy's script returns only the duplicates)
 * answers {@link #NOT_DUPLICATE}: it counts as the {@code new} or {@code retry} the ledger expected, and as
 * a missed duplicate where a duplicate was expected.
 *
 * <p>One tally per worker (not thread-safe); {@link #add} merges them.
 */
public final class VerdictTally {

    /** An answer of "process it" that does not say whether as {@code new} or as {@code retry}. */
    public static final byte NOT_DUPLICATE = 3;

    private final long[] received = new long[Verdict.values().length];
    private long falseDrops;
    private long missedDuplicates;
    private long unexpected;

    /** Classifies one answer. */
    public void record(Verdict expected, Verdict actual) {
        received[actual.ordinal()]++;
        if (expected == actual) {
            return;
        }
        if (expected == Verdict.NEW && actual == Verdict.DUPLICATE) {
            falseDrops++;
        } else if (expected == Verdict.DUPLICATE && actual == Verdict.NEW) {
            missedDuplicates++;
        } else {
            unexpected++;
        }
    }

    /** Classifies a batch of answers given as verdict codes, item by item. */
    public void record(byte[] expectedCodes, byte[] actualCodes) {
        if (expectedCodes.length != actualCodes.length) {
            throw new IllegalArgumentException(actualCodes.length + " verdicts for " + expectedCodes.length + " items");
        }
        for (int i = 0; i < expectedCodes.length; i++) {
            Verdict expected = Verdict.ofCode(expectedCodes[i]);
            if (actualCodes[i] == NOT_DUPLICATE) {
                record(expected, expected == Verdict.DUPLICATE ? Verdict.NEW : expected);
            } else {
                record(expected, Verdict.ofCode(actualCodes[i]));
            }
        }
    }

    /**
     * {@link #record(byte[], byte[])} for a batch sent again after its first attempt failed: that attempt may have
     * claimed some of its items, with the same owners, so {@code retry} counts as the {@code new} expected.
     */
    public void recordResent(byte[] expectedCodes, byte[] actualCodes) {
        byte[] actual = actualCodes.clone();
        for (int i = 0; i < actual.length && i < expectedCodes.length; i++) {
            if (expectedCodes[i] == Verdict.NEW.code() && actual[i] == Verdict.RETRY.code()) {
                actual[i] = Verdict.NEW.code();
            }
        }
        record(expectedCodes, actual);
    }

    public void add(VerdictTally other) {
        for (int i = 0; i < received.length; i++) {
            received[i] += other.received[i];
        }
        falseDrops += other.falseDrops;
        missedDuplicates += other.missedDuplicates;
        unexpected += other.unexpected;
    }

    public long count(Verdict verdict) {
        return received[verdict.ordinal()];
    }

    public long total() {
        long sum = 0;
        for (long n : received) {
            sum += n;
        }
        return sum;
    }

    public long falseDrops() {
        return falseDrops;
    }

    public long missedDuplicates() {
        return missedDuplicates;
    }

    public long unexpected() {
        return unexpected;
    }

    /** True when no answer lost data or let a duplicate through. */
    public boolean safe() {
        return falseDrops == 0 && missedDuplicates == 0;
    }
}
