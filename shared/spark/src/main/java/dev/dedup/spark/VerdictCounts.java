package dev.dedup.spark;

import java.io.Serializable;
import org.apache.spark.SparkContext;
import org.apache.spark.util.LongAccumulator;

/**
 * The verdicts a transform's tasks got, as three named Spark accumulators ({@code dedup.new}, {@code dedup.retry},
 * {@code dedup.duplicate}), which the Spark UI shows per stage. Read them on the driver.
 *
 * <p>Spark adds the counts of successful task attempts only. A result computed twice (used by two actions without
 * {@code persist}) is claimed twice and counted twice: the second claims answer {@code retry}.
 */
public final class VerdictCounts implements Serializable {

    private static final long serialVersionUID = 1L;

    private final LongAccumulator fresh;
    private final LongAccumulator retried;
    private final LongAccumulator duplicates;

    private VerdictCounts(LongAccumulator fresh, LongAccumulator retried, LongAccumulator duplicates) {
        this.fresh = fresh;
        this.retried = retried;
        this.duplicates = duplicates;
    }

    static VerdictCounts register(SparkContext sc) {
        return new VerdictCounts(
                sc.longAccumulator("dedup.new"),
                sc.longAccumulator("dedup.retry"),
                sc.longAccumulator("dedup.duplicate"));
    }

    /** Rows answered {@code new}: nobody had claimed the id in the window. */
    public long fresh() {
        return fresh.value();
    }

    /** Rows answered {@code retry}: this same copy was claimed before (a task run again). */
    public long retried() {
        return retried.value();
    }

    /** Rows answered {@code duplicate}: another copy of the message holds the claim. */
    public long duplicates() {
        return duplicates.value();
    }

    /** All rows claimed. */
    public long total() {
        return fresh() + retried() + duplicates();
    }

    LongAccumulator[] accumulators() {
        return new LongAccumulator[] {fresh, retried, duplicates};
    }

    @Override
    public String toString() {
        return "new=" + fresh() + " retry=" + retried() + " duplicate=" + duplicates();
    }
}
