package dev.dedup.agent.store.redis.access;

import dev.dedup.agent.store.redis.access.RedisPort.Durability;

/**
 * What a script call is to the port: its {@code op} tag on {@code dedup.redis.script}, and whether a worker is
 * answered on the strength of its writes ({@link Durability}). What the script does with its items is its own
 * argument ({@link RedisScript.Mode}).
 */
public enum Op {
    CLAIM("claim", Durability.REPLICATED),
    RELEASE("release", Durability.REPLICATED),
    /** {@code claims.lua}, reading only: what a shard holds of ids (to copy claims from one shard to another). */
    LOOKUP("lookup", Durability.PRIMARY),
    /** {@code table.lua}: splits or merges buckets of a fingerprint table. */
    RESIZE("resize", Durability.REPLICATED),
    /** {@code sweep.lua} and {@code tables.lua}: ended claims, swept again on the next round if lost. */
    SWEEP("sweep", Durability.PRIMARY),
    /** {@code ranges.lua}: which parts of ranges are committed. */
    RANGE_CHECK("range_check", Durability.PRIMARY),
    /** {@code ranges.lua}: commit ranges. */
    RANGE_COMMIT("range_commit", Durability.REPLICATED),
    /** {@code topology.lua}: read or stamp a shard's topology record. */
    TOPOLOGY("topology", Durability.PRIMARY);

    private final String tag;
    private final Durability durability;

    Op(String tag, Durability durability) {
        this.tag = tag;
        this.durability = durability;
    }

    /** The {@code op} tag of {@code dedup.redis.script}. */
    public String tag() {
        return tag;
    }

    /** Whether the port waits for replicas before it completes the call. */
    public Durability durability() {
        return durability;
    }
}
