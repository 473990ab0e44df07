package dev.dedup.agent.store.embedded;

/**
 * How long a set-associative table of {@code sets × ways} FIFO slots remembers an id, counted in later
 * distinct ids, when nothing expires first.
 *
 * <p>An id stays in its set until {@code ways} later ids have landed in the same set. Later ids choose
 * a set uniformly, so after {@code x} of them the number that hit one set is close to Poisson with
 * mean {@code x / sets}, and
 *
 * <pre>    P(remembered after x later ids) ≈ P(Poisson(x / sets) &lt; ways)</pre>
 *
 * <p>This holds whether or not the set was full when the id arrived: FIFO keeps the last {@code ways}
 * arrivals either way. For a direct-mapped table ({@code ways = 1}, NSQ's fixed-size hash map) it is
 * {@code e^(-x/N)}, the limit of {@code (1 - 1/N)^x}. Remembering 90 % takes a mean load of about
 * 0.105 ids per slot direct-mapped but about 4.66 per set (0.58 per slot) at 8 ways, so an 8-way table
 * needs about 5.5 times fewer slots for the same memory of the past.
 */
public final class RetentionModel {

    private RetentionModel() {}

    /** The chance that an id is still in a table of {@code sets × ways} slots after {@code laterIds} more. */
    public static double probabilityRemembered(int ways, long sets, double laterIds) {
        requireShape(ways, sets);
        return poissonBelow(ways, Math.max(0, laterIds) / sets);
    }

    /**
     * The most later ids after which an id is still remembered with at least {@code probability}: the
     * table's memory of the past, e.g. {@code idsRemembered(8, 812_500, 0.9)} ≈ 3.8 M.
     */
    public static long idsRemembered(int ways, long sets, double probability) {
        requireShape(ways, sets);
        return (long) Math.floor(meanLoadFor(ways, probability) * sets);
    }

    /**
     * The number of slots ({@code ways} per set) that still remembers an id with {@code probability}
     * after {@code laterIds} more: {@code slotsNeeded(1, 3_600_000, 0.9)} ≈ 34.2 M for NSQ's table.
     */
    public static long slotsNeeded(int ways, double laterIds, double probability) {
        requireShape(ways, 1);
        long sets = (long) Math.ceil(laterIds / meanLoadFor(ways, probability));
        return Math.max(1, sets) * ways;
    }

    /**
     * The largest mean number of later ids per set, {@code λ}, with {@code P(Poisson(λ) < ways) ≥
     * probability}; found by bisection since the left side falls steadily as {@code λ} grows.
     */
    public static double meanLoadFor(int ways, double probability) {
        if (ways < 1) {
            throw new IllegalArgumentException("ways must be at least 1: " + ways);
        }
        if (!(probability > 0 && probability < 1)) {
            throw new IllegalArgumentException("probability must lie strictly between 0 and 1: " + probability);
        }
        double low = 0;
        double high = 1;
        while (poissonBelow(ways, high) >= probability) {
            high *= 2;
        }
        for (int i = 0; i < 200 && high - low > 1e-12 * high; i++) {
            double mid = (low + high) / 2;
            if (poissonBelow(ways, mid) >= probability) {
                low = mid;
            } else {
                high = mid;
            }
        }
        return low;
    }

    /** {@code P(Poisson(lambda) < ways)}: the first {@code ways} terms of the series. */
    static double poissonBelow(int ways, double lambda) {
        double term = Math.exp(-lambda);
        double sum = term;
        for (int k = 1; k < ways; k++) {
            term *= lambda / k;
            sum += term;
        }
        return Math.min(1, sum);
    }

    private static void requireShape(int ways, long sets) {
        if (ways < 1 || sets < 1) {
            throw new IllegalArgumentException(
                    "need at least one set of at least one way: sets=" + sets + ", ways=" + ways);
        }
    }
}
