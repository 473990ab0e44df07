package dev.dedup.agent.store.redis;

import java.nio.charset.StandardCharsets;

/** What a script call does: its first argument to the claim scripts, and its tag on the call timers. */
enum Mode {
    CLAIM("c", "claim"),
    RELEASE("r", "release"),
    /** Only {@code sweep.lua}, which takes no mode argument. */
    SWEEP("s", "sweep"),
    /** {@code ranges.lua}: which parts of ranges are committed. */
    RANGE_CHECK("k", "range_check"),
    /** {@code ranges.lua}: commit ranges. */
    RANGE_COMMIT("m", "range_commit");

    private final byte[] arg;
    private final String tag;

    Mode(String arg, String tag) {
        this.arg = arg.getBytes(StandardCharsets.US_ASCII);
        this.tag = tag;
    }

    /** The script's {@code ARGV[1]}. */
    byte[] arg() {
        return arg; // shared: callers pass it to Redis and never write it
    }

    /** The {@code op} tag of {@code dedup.redis.script}. */
    String tag() {
        return tag;
    }
}
