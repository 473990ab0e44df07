package dev.dedup.wire;

import java.math.BigInteger;
import java.util.Objects;

/**
 * An inclusive range of sequence numbers of one ordered stream (a Kinesis shard, a Kafka partition), as
 * {@code POST /v1/ranges/check} and {@code /v1/ranges/commit} carry it: unsigned decimal numbers of at most
 * {@value Limits#MAX_SEQUENCE_DIGITS} digits, {@code from <= to}.
 *
 * <p>Kinesis sequence numbers are sparse: a worker that reads a shard in order commits from one past the
 * previous batch's last sequence number to this batch's last ({@link #after}), so that its commits merge
 * into one stored range.
 */
public final class SequenceRange {

    private static final BigInteger LARGEST =
            BigInteger.TEN.pow(Limits.MAX_SEQUENCE_DIGITS).subtract(BigInteger.ONE);

    private final BigInteger from;
    private final BigInteger to;

    /** Checks the range: both ends between 0 and 10^129 - 1, {@code from <= to}. */
    public SequenceRange(BigInteger from, BigInteger to) {
        Objects.requireNonNull(from, "from");
        Objects.requireNonNull(to, "to");
        if (from.signum() < 0 || to.compareTo(LARGEST) > 0 || from.compareTo(to) > 0) {
            throw new IllegalArgumentException("not a range of unsigned sequence numbers of at most "
                    + Limits.MAX_SEQUENCE_DIGITS + " digits with from <= to: " + from + " to " + to);
        }
        this.from = from;
        this.to = to;
    }

    /** The first sequence number of the range. */
    public BigInteger from() {
        return from;
    }

    /** The last sequence number of the range (inclusive). */
    public BigInteger to() {
        return to;
    }

    public static SequenceRange of(long from, long to) {
        return new SequenceRange(BigInteger.valueOf(from), BigInteger.valueOf(to));
    }

    /** Decimal strings, as Kinesis gives sequence numbers. */
    public static SequenceRange of(String from, String to) {
        return new SequenceRange(new BigInteger(from), new BigInteger(to));
    }

    /**
     * The range a worker commits after reading a batch in order: from one past {@code previousLast} (the
     * last sequence number of the batch before, or null for the first batch, which starts at
     * {@code first}) to {@code last}.
     */
    public static SequenceRange after(String previousLast, String first, String last) {
        BigInteger from =
                previousLast == null ? new BigInteger(first) : new BigInteger(previousLast).add(BigInteger.ONE);
        return new SequenceRange(from, new BigInteger(last));
    }

    public boolean contains(BigInteger n) {
        return from.compareTo(n) <= 0 && n.compareTo(to) <= 0;
    }

    @Override
    public boolean equals(Object o) {
        if (this == o) {
            return true;
        }
        if (!(o instanceof SequenceRange)) {
            return false;
        }
        SequenceRange other = (SequenceRange) o;
        return from.equals(other.from) && to.equals(other.to);
    }

    @Override
    public int hashCode() {
        return 31 * from.hashCode() + to.hashCode();
    }

    @Override
    public String toString() {
        return "[" + from + ", " + to + "]";
    }
}
