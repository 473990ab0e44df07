package dev.dedup.agent.store.redis.topology;

import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * What the watch ({@link Topology}) makes of a shard's record read anew, decided without Redis from what the shard
 * held when last read, what it holds now, and what this agent expects of it.
 */
final class RecordWatch {

    /** What a shard's record read anew says. */
    enum Seen {
        /** The same as when last read. */
        UNCHANGED,
        /** The record this agent expects, after another one or none: the shard is back. */
        BACK,
        /** The record after the cut-over of the declared change, before this agent made it: it is made now. */
        ADVANCED,
        /** This deployment's record in a later epoch: the shard list changed and this agent's is the old one. */
        MOVED_ON,
        /** No record, or another one: the shard lost its data or was replaced. */
        LOST
    }

    private RecordWatch() {}

    /**
     * {@code was} and {@code now}: the record held when last read and now (null: none); {@code expected}: the record
     * this agent expects now; {@code after}: the one it expects after the cut-over (the same without a change);
     * {@code cutOver}: whether it has cut over.
     */
    static Seen decide(String was, String now, String expected, String after, boolean cutOver) {
        if (Objects.equals(was, now)) {
            return Seen.UNCHANGED;
        }
        if (expected.equals(now)) {
            return Seen.BACK;
        }
        if (after.equals(now) && !cutOver) {
            return Seen.ADVANCED;
        }
        return movedOn(now, after) ? Seen.MOVED_ON : Seen.LOST;
    }

    /** Whether {@code record} is the deployment of {@code mine} in a later epoch than it. */
    static boolean movedOn(String record, String mine) {
        Map<String, String> m = TopologyRecord.parse(mine);
        Map<String, String> r = record == null ? null : TopologyRecord.parse(record);
        return r != null
                && m != null
                && r.get("deployment").equals(m.get("deployment"))
                && Long.parseLong(r.get("epoch")) > Long.parseLong(m.get("epoch"));
    }

    /** The log line for a shard {@code shard} whose record was {@code seen} to be {@code now}. */
    static String message(Seen seen, String shard, String now) {
        return switch (seen) {
            case UNCHANGED, ADVANCED -> "redis shard " + shard + " holds \"" + now + "\"";
            case BACK -> "redis shard " + shard + " holds its topology record again";
            case MOVED_ON ->
                "redis shard " + shard + " now holds \"" + now + "\": the deployment changed its shard list"
                        + " (a later topology epoch) and this agent's --redis is the old one; its ids are answered 503 until"
                        + " it is restarted with the new list (docs/redis.md#changing-the-shard-list)";
            case LOST ->
                "redis shard " + shard
                        + (now == null ? " has lost its topology record" : " now holds \"" + now + "\"")
                        + ": it lost its data or was replaced; its ids are answered 503 until an operator accepts the loss"
                        + " (docs/redis.md#a-shard-that-lost-its-data)";
        };
    }

    /** A shard not in the topology, holding {@code held} (null: no record), for {@link #problem}. */
    static String wrong(String shard, String held) {
        return shard + (held == null ? " has no topology record" : " holds \"" + held + "\"");
    }

    /** Why the shards {@code wrong} are not in the topology; null when none is. */
    static String problem(List<String> wrong) {
        return wrong.isEmpty()
                ? null
                : "redis shards not in the topology: " + wrong + "; their ids are answered 503 until an operator"
                        + " accepts the loss (docs/redis.md#a-shard-that-lost-its-data)";
    }
}
