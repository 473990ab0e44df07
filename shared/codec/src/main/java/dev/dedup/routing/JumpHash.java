package dev.dedup.routing;

/**
 * Jump consistent hash (Lamping and Veach, 2014): maps a 64-bit key to one of {@code n} shards so that
 * going from {@code n} to {@code n + 1} shards moves only {@code 1/(n+1)} of the keys, all of them to the
 * new shard. No table, no memory, a few nanoseconds.
 */
public final class JumpHash {

    private JumpHash() {}

    /** The shard, in {@code [0, shards)}, of {@code key}. */
    public static int shard(long key, int shards) {
        if (shards <= 0) {
            throw new IllegalArgumentException("shards must be positive, got " + shards);
        }
        long b = -1;
        long j = 0;
        while (j < shards) {
            b = j;
            key = key * 2862933555777941757L + 1;
            j = (long) ((b + 1) * ((double) (1L << 31) / (double) ((key >>> 33) + 1)));
        }
        return (int) b;
    }
}
