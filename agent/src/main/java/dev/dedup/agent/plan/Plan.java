package dev.dedup.agent.plan;

import java.time.Duration;

/**
 * What a rate and a window take from Redis and from the agents, from the costs the steady-state benchmark
 * measures ({@code docs/performance.md}): shards that hold a full window, not flushed ones.
 *
 * <p>A deployment holds one window of claims, plus the ended claims a bucket still holds until it is written
 * again or swept: a bucket of a fingerprint table is written about every {@code window / 48} (it holds ~48
 * claims), so about 1/48 more. Shards are planned to fill {@link #FILL_AT} of their {@code maxmemory}, where
 * the shipped alert fires, and a Redis pod's memory limit is {@code maxmemory / 0.7}, as the shipped start
 * script sets it, leaving room for the AOF rewrite's copy-on-write. Disk holds the AOF, an RDB and the
 * rewrite's temporary file: three times {@code maxmemory}.
 *
 * <p>On a Redis Cluster the agent spreads ids over its groups (one hash slot each, evenly spaced), not over
 * the masters, so a master holds a whole number of groups: with 32 groups on 3 masters the busiest holds 11,
 * a third more than 32 / 3 would. The cluster is planned on its busiest master.
 *
 * @param idsPerSecond ids claimed a second, copies included
 * @param window how long a claim lasts
 * @param layout where claims are kept
 * @param shardMaxMemory the {@code maxmemory} of one shard
 */
public record Plan(double idsPerSecond, Duration window, Layout layout, long shardMaxMemory) {

    /** The share of a shard's {@code maxmemory} a plan fills: the shipped alert fires above it. */
    public static final double FILL_AT = 0.8;
    /** A Redis pod's memory limit over its {@code maxmemory} (start-redis.sh sets 70 % of the limit). */
    static final double LIMIT_OVER_MAXMEMORY = 1 / 0.7;
    /** A Redis pod's volume over its {@code maxmemory}: the AOF, an RDB, the rewrite's temporary file. */
    static final int DISK_OVER_MAXMEMORY = 3;
    /** The fewest masters a Redis Cluster fails over with: a majority of them must see a master down. */
    public static final int MIN_CLUSTER_MASTERS = 3;
    /** The agent's own CPU per id claimed through Redis, near-cache lookup included (µs). */
    static final double AGENT_CPU_MICROS = 2.0;

    /** Where claims are kept, with what one costs at steady state. */
    public enum Layout {
        /** The default: fingerprint tables, claims in any order. */
        FINGERPRINT("fingerprint tables", 20.0, 6.6, 1.0 + 1.0 / 48),
        /**
         * A namespace filed by event time ({@code --namespace-event-rate}): buckets per second, kept until the
         * namespace's event clock is two windows past their second (a window more for readers behind the newest).
         */
        EVENT_TIME("event-time buckets", 13.5, 2.4, 2.0);

        final String title;
        /** Redis bytes per live claim ({@code used_memory} over claims). */
        final double bytesPerClaim;
        /** Redis CPU per new id (µs), at batches of 1,000. */
        final double redisCpuMicros;
        /** Claims held over the claims of one window. */
        final double heldOverWindow;

        Layout(String title, double bytesPerClaim, double redisCpuMicros, double heldOverWindow) {
            this.title = title;
            this.bytesPerClaim = bytesPerClaim;
            this.redisCpuMicros = redisCpuMicros;
            this.heldOverWindow = heldOverWindow;
        }
    }

    public Plan {
        if (!(idsPerSecond > 0) || Double.isInfinite(idsPerSecond)) {
            throw new IllegalArgumentException("the rate must be above 0");
        }
        if (window.isNegative() || window.isZero()) {
            throw new IllegalArgumentException("the window must be above 0");
        }
        if (shardMaxMemory < (1L << 20)) {
            throw new IllegalArgumentException("a shard's maxmemory must be at least 1MiB");
        }
    }

    /** Claims the shards hold once a window has passed. */
    public double claimsHeld() {
        return idsPerSecond * window.toMillis() / 1000.0 * layout.heldOverWindow;
    }

    /** Redis memory for the claims, all shards, bytes. */
    public double redisBytes() {
        return claimsHeld() * layout.bytesPerClaim;
    }

    /** Shards (primaries) that hold the claims at {@link #FILL_AT} of their {@code maxmemory}. */
    public int shards() {
        return (int) Math.max(1, Math.ceil(redisBytes() / (shardMaxMemory * FILL_AT)));
    }

    /** Bytes of claims on one shard once a window has passed. */
    public double bytesPerShard() {
        return redisBytes() / shards();
    }

    /** A Redis pod's memory limit, bytes. */
    public long podMemoryLimit() {
        return (long) Math.ceil(shardMaxMemory * LIMIT_OVER_MAXMEMORY);
    }

    /** A Redis pod's volume, bytes. */
    public long podDisk() {
        return shardMaxMemory * DISK_OVER_MAXMEMORY;
    }

    /**
     * Masters of a Redis Cluster whose busiest holds its share of the claims at {@link #FILL_AT} of its
     * {@code maxmemory}, with the claims spread over {@code groups} groups: at least {@link
     * #MIN_CLUSTER_MASTERS}, at most {@code groups} (a master beyond them would hold none).
     *
     * @throws IllegalArgumentException when even one group a master is too much for one master, naming the
     *     groups that would do
     */
    public int clusterMasters(int groups) {
        for (int masters = MIN_CLUSTER_MASTERS; masters <= Math.max(MIN_CLUSTER_MASTERS, groups); masters++) {
            if (busiestMasterBytes(groups, masters) <= shardMaxMemory * FILL_AT) {
                return masters;
            }
        }
        double needed = Math.ceil(redisBytes() / (shardMaxMemory * FILL_AT));
        int enough = Math.max(1, groups);
        while (enough < needed) {
            enough *= 2;
        }
        throw new IllegalArgumentException("--redis-cluster-groups " + groups + ": a group would hold more than "
                + Math.round(100 * FILL_AT) + " % of a shard's maxmemory; use " + enough
                + " or more, or a larger --shard-maxmemory");
    }

    /** Groups on the busiest of {@code masters} masters, whose slot ranges are even. */
    public static int busiestMasterGroups(int groups, int masters) {
        return (groups + masters - 1) / masters;
    }

    /** Bytes of claims on the busiest of {@code masters} masters once a window has passed. */
    public double busiestMasterBytes(int groups, int masters) {
        return redisBytes() * busiestMasterGroups(groups, masters) / groups;
    }

    /** Redis CPU for the ids, all shards, in cores (every id counted as new: an upper bound). */
    public double redisCores() {
        return idsPerSecond * layout.redisCpuMicros / 1e6;
    }

    /** The agents' CPU for the ids, all agents, in cores. */
    public double agentCores() {
        return idsPerSecond * AGENT_CPU_MICROS / 1e6;
    }
}
