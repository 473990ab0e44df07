package dev.dedup.agent.store.redis.layout;

import java.util.List;

/**
 * Where a fingerprint table stands on one shard: its linear-hashing level and split pointer, which say how many
 * buckets it has and which bucket holds an id, and the records it holds. A table of base {@code b} at level
 * {@code L} with split pointer {@code p} has {@code 2^b * 2^L + p} buckets: an id whose route's low bits
 * {@code h} give {@code a = h mod 2^(b+L)} is in bucket {@code a}, unless {@code a < p} (bucket {@code a} has
 * been split), then in {@code h mod 2^(b+L+1)}.
 *
 * @param level  doublings of the base so far
 * @param split  the next bucket to split, below {@code 2^(base + level)}
 * @param claims records the table holds (live, ended but not yet dropped, released): what sizes it
 */
public record TableState(int level, long split, long claims) {

    static final TableState EMPTY = new TableState(0, 0, 0);

    /** Buckets of a table of {@code baseBits} in this state. */
    long buckets(int baseBits) {
        return (1L << (baseBits + level)) + split;
    }

    /** The bucket holding an id whose route's low bits are {@code route} (only the low {@code base + 16} count). */
    long bucket(int baseBits, long route) {
        long low = 1L << (baseBits + level);
        long a = route & (low - 1);
        return a < split ? route & (2 * low - 1) : a;
    }

    /** What the scripts are told: {@code "<level> <split>"}. */
    String view() {
        return level + " " + split;
    }

    /** The state a script answered as its values 1 to 3: level, split, claims. */
    static TableState of(List<Object> script) {
        return new TableState(number(script, 1).intValue(), number(script, 2), number(script, 3));
    }

    private static Long number(List<Object> script, int i) {
        return script.size() > i && script.get(i) instanceof Long n ? n : 0L;
    }
}
