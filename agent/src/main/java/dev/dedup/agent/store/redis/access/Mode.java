package dev.dedup.agent.store.redis.access;

import java.nio.charset.StandardCharsets;

/**
 * What a script call does: its first argument to the claim scripts, its tag on the call timers, and
 * whether its writes are what a worker relies on (so that {@code --redis-wait-replicas} waits for them).
 */
public enum Mode {
    CLAIM("c", "claim", true),
    RELEASE("r", "release", true),
    /** {@code claims.lua}, reading only: what a shard holds of ids (to copy claims from one shard to another). */
    LOOKUP("k", "lookup", false),
    /** {@code table.lua}: splits or merges buckets of a fingerprint table. */
    TABLE("b", "resize", true),
    /** {@code sweep.lua}, which takes no mode argument. */
    SWEEP("s", "sweep", false),
    /** {@code ranges.lua}: which parts of ranges are committed. */
    RANGE_CHECK("k", "range_check", false),
    /** {@code ranges.lua}: commit ranges. */
    RANGE_COMMIT("m", "range_commit", true),
    /** {@code topology.lua}: read or stamp a shard's topology record. */
    TOPOLOGY("t", "topology", false);

    private final byte[] arg;
    private final String tag;
    private final boolean answered;

    Mode(String arg, String tag, boolean answered) {
        this.arg = arg.getBytes(StandardCharsets.US_ASCII);
        this.tag = tag;
        this.answered = answered;
    }

    /** Whether a worker is answered on the strength of this call's writes: they are worth a {@code WAIT}. */
    public boolean waitsForReplicas() {
        return answered;
    }

    /** The script's {@code ARGV[1]}. */
    public byte[] arg() {
        return arg; // shared: callers pass it to Redis and never write it
    }

    /** The {@code op} tag of {@code dedup.redis.script}. */
    public String tag() {
        return tag;
    }
}
