package dev.dedup.loadtest.workload;

import dev.dedup.wire.Verdict;
import java.util.List;
import java.util.Locale;

/**
 * What one measured pass sends: every id of the run once, as the copy {@link #copy()}. The verdict each item
 * should get is not fixed here but decided by the {@link Ledger} from what the run sent before; {@link
 * #expected()} is what a correct agent answers for all of them when the scenarios run in order.
 */
public enum Scenario {
    /** Claims fresh ids with their original owners: all {@code new}. */
    COLD(Owners.ORIGINAL, Verdict.NEW),
    /** Re-sends the same ids with the same owners, as a retried task would: all {@code retry}. */
    RETRY(Owners.ORIGINAL, Verdict.RETRY),
    /** Sends the same ids with other owners, as a producer's second write: all {@code duplicate}. */
    DUPLICATE(Owners.SECOND_WRITE, Verdict.DUPLICATE);

    private final int copy;
    private final Verdict expected;

    Scenario(int copy, Verdict expected) {
        this.copy = copy;
        this.expected = expected;
    }

    /** Which copy of each message is sent ({@link Owners#ORIGINAL} or {@link Owners#SECOND_WRITE}). */
    public int copy() {
        return copy;
    }

    public Verdict expected() {
        return expected;
    }

    public String cliName() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** {@code cold}, {@code retry}, {@code duplicate}, or {@code all} (the three in that order). */
    public static List<Scenario> parse(String name) {
        if (name.equals("all")) {
            return List.of(COLD, RETRY, DUPLICATE);
        }
        for (Scenario s : values()) {
            if (s.cliName().equals(name)) {
                return List.of(s);
            }
        }
        throw new IllegalArgumentException("--scenario: '" + name + "' is not one of cold, retry, duplicate, all");
    }
}
