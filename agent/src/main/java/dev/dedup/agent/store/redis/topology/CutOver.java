package dev.dedup.agent.store.redis.topology;

import java.time.Instant;

/**
 * When the cut-over of a declared change of the shard list is made, and whether it was, decided without Redis:
 * {@link Topology} reads and writes what these say.
 */
final class CutOver {

    /** After a failed cut-over claims are routed as before for this long, then try it again. */
    static final long RETRY_NANOS = 1_000_000_000L;

    private CutOver() {}

    /** Whether the cut-over is due and not made: at or after its second (never without a change). */
    static boolean due(boolean cutOver, long nowMillis, long cutoverSecond) {
        return !cutOver && Math.floorDiv(nowMillis, 1000L) >= cutoverSecond;
    }

    /**
     * Whether a claim that finds the cut-over due tries it now: unless the last try failed less than {@link
     * #RETRY_NANOS} ago (a shard down), so that claims are then routed as before rather than each wait on it.
     */
    static boolean tryNow(boolean lastFailed, long lastFailureNanos, long nowNanos) {
        return !lastFailed || nowNanos - lastFailureNanos >= RETRY_NANOS;
    }

    /**
     * Why shard {@code shard}, holding {@code held} after it was advanced from {@code before} to {@code after}, is
     * not cut over; null when it holds {@code after}.
     */
    static String notAdvanced(String shard, String held, byte[] before, byte[] after) {
        if (TopologyRecord.text(after).equals(held)) {
            return null;
        }
        return "redis shard " + shard + " holds " + (held == null ? "no topology record" : "\"" + held + "\"")
                + " at the cut-over, not \"" + TopologyRecord.text(before) + "\"";
    }

    /** The log line of a cut-over made at {@code nowMillis}, declared for {@code cutoverSecond}. */
    static String made(long nowMillis, long cutoverSecond) {
        return "redis: cut over to --redis at " + Instant.ofEpochMilli(nowMillis) + " (declared for "
                + Instant.ofEpochSecond(cutoverSecond) + "); ids whose shard changed are looked up in the previous list"
                + " too until its claims have ended";
    }
}
