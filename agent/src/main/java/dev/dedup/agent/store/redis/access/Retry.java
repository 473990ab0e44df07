package dev.dedup.agent.store.redis.access;

/**
 * How the Redis tier tries again what failed for a moment: at most {@code attempts} tries in all, pausing {@code
 * firstPauseMillis} after the first, twice as long after each next one, never longer than {@code maxPauseMillis}.
 * Used for a Cluster slot being migrated ({@code TRYAGAIN}), a fingerprint table resized under a call, and two
 * agents stamping the shards' record at the same start.
 */
public record Retry(int attempts, long firstPauseMillis, long maxPauseMillis) {

    public Retry {
        if (attempts < 1 || firstPauseMillis < 0 || maxPauseMillis < firstPauseMillis) {
            throw new IllegalArgumentException("a retry needs an attempt and pauses that grow: " + attempts + ", "
                    + firstPauseMillis + " ms, " + maxPauseMillis + " ms");
        }
    }

    /** The same pause after every try. */
    public static Retry every(int attempts, long pauseMillis) {
        return new Retry(attempts, pauseMillis, pauseMillis);
    }

    /** Whether try {@code attempt} (counted from 1) may be followed by another. */
    public boolean another(int attempt) {
        return attempt < attempts;
    }

    /** The pause after try {@code attempt} (counted from 1). */
    public long pauseMillis(int attempt) {
        long pause = firstPauseMillis;
        for (int i = 1; i < attempt && pause < maxPauseMillis; i++) {
            pause *= 2;
        }
        return Math.min(pause, maxPauseMillis);
    }
}
