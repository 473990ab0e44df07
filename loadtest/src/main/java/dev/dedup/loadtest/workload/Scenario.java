package dev.dedup.loadtest.workload;

import java.util.List;
import java.util.Locale;

/**
 * What one measured pass sends. The verdict each item should get is not fixed here but decided by the
 * {@link Ledger} from what the run sent before.
 */
public enum Scenario {
    /** Claims fresh ids with their original owners: all {@code new}. */
    COLD,
    /** Re-sends the same ids with the same owners, as a retried task would: all {@code retry}. */
    RETRY,
    /** Sends the same ids with other owners, as a producer's second write: all {@code duplicate}. */
    DUPLICATE,
    /**
     * Fresh ids of their own, with producer duplicates ({@code --dup-rate}) and replayed batches
     * ({@code --retry-rate}) spread through the stream: mostly {@code new}, some {@code duplicate} and
     * {@code retry}.
     */
    MIXED;

    public String cliName() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** True when the pass sends the ids of the cold pass again (so it needs them claimed first). */
    public boolean repeatsCold() {
        return this == RETRY || this == DUPLICATE;
    }

    /** The plan of the uniform passes; the mixed pass builds its own ({@link SendPlan#mixed}). */
    public SendPlan uniformPlan(int ids) {
        return switch (this) {
            case COLD, RETRY -> SendPlan.uniform(ids, Owners.ORIGINAL);
            case DUPLICATE -> SendPlan.uniform(ids, Owners.SECOND_WRITE);
            case MIXED -> throw new IllegalStateException("the mixed plan depends on its rates");
        };
    }

    /**
     * {@code cold}, {@code retry}, {@code duplicate}, {@code mixed}, a comma-separated list of them, or
     * {@code all} (cold, retry, duplicate, mixed).
     */
    public static List<Scenario> parse(String text) {
        if (text.equals("all")) {
            return List.of(COLD, RETRY, DUPLICATE, MIXED);
        }
        List<Scenario> list = new java.util.ArrayList<>();
        for (String name : text.split(",", -1)) {
            list.add(one(name.trim(), text));
        }
        return List.copyOf(list);
    }

    private static Scenario one(String name, String text) {
        for (Scenario s : values()) {
            if (s.cliName().equals(name)) {
                return s;
            }
        }
        throw new IllegalArgumentException("--scenario: '" + text
                + "' is not one of cold, retry, duplicate, mixed, all (or a comma-separated list)");
    }
}
