package dev.dedup.agent.store.redis.access;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionStage;
import java.util.function.Consumer;

/**
 * The Redis tier's one port: everything the layouts ask of Redis, for shards numbered {@code 0..shards-1}.
 * {@code connections.LettuceRedis} implements it for standalone shards, Sentinel-managed primaries and a Redis Cluster;
 * nothing else in the agent talks to a Redis client.
 *
 * <p>Every stage fails with a {@link dev.dedup.agent.store.StoreUnavailableException} that names the
 * shard and says why ({@link RedisFailures}); none completes with a guess.
 */
public interface RedisPort extends AutoCloseable {

    int shards();

    /** The shard's name for messages: its URI without credentials. */
    String name(int shard);

    /**
     * Runs {@code script} on {@code shard} with {@code keys} and {@code args} (by its SHA, sending it whole
     * once when the shard answers {@code NOSCRIPT}), then, for an {@code op} of {@link Durability#REPLICATED},
     * waits for the configured replicas ({@code WAIT}), and times the call under {@code op}. Completes with the
     * script's reply, a list.
     */
    CompletionStage<List<Object>> eval(int shard, Script script, Op op, byte[][] keys, byte[][] args);

    /** Completes when every shard answers a {@code PING}. */
    CompletionStage<Void> ping();

    /**
     * Subscribes to {@code channel} on every shard; {@code onMessage} gets each payload. Whenever a shard's
     * subscription drops or is made again (Lettuce resubscribes by itself), {@code listening} is told whether
     * every shard's is subscribed now; calls come from I/O threads, one at a time, in the order of the changes.
     * Fails when a shard cannot be subscribed now.
     */
    Subscription subscribe(byte[] channel, Consumer<byte[]> onMessage, Consumer<Boolean> listening);

    /**
     * The {@code maxmemory-policy} of every server claims are written to (by {@code CONFIG GET}, else {@code INFO memory}): each
     * shard's, the previous list's during a change of it, or every master of a Redis Cluster. Blocks: for the
     * start only.
     */
    List<EvictionReading> evictionPolicies();

    /**
     * The shard's {@code INFO memory}: {@code used_memory}, {@code maxmemory} (0: no limit) and {@code
     * maxmemory_policy}; on a Redis Cluster, of the master serving the group's slot.
     */
    CompletionStage<MemoryInfo> memory(int shard);

    /** The shard's part of {@code /v1/stats}. */
    Map<String, Object> stats(int shard);

    /** Closes every connection, each within a bound, so that a gone shard cannot hold up a shutdown. */
    @Override
    void close();

    /** Whether a call's writes must reach replicas before it completes. */
    enum Durability {
        /**
         * A worker is answered on the strength of the call's writes: with {@code --redis-wait-replicas}, the call
         * completes once that many replicas have them.
         */
        REPLICATED,
        /** The primary's reply is enough: a read, or a write that is redone when lost. */
        PRIMARY
    }

    /**
     * What a script call is to the port: its {@code op} tag on {@code dedup.redis.script}, and whether a worker is
     * answered on the strength of its writes ({@link Durability}). What the script does with its items is its own
     * argument ({@link Script.Mode}).
     */
    enum Op {
        CLAIM("claim", Durability.REPLICATED),
        RELEASE("release", Durability.REPLICATED),
        /** {@code claims.lua}, reading only: what a shard holds of ids (to copy claims from one shard to another). */
        LOOKUP("lookup", Durability.PRIMARY),
        /** {@code table.lua}: splits or merges buckets of a fingerprint table. */
        RESIZE("resize", Durability.REPLICATED),
        /**
         * {@code sweep.lua}, {@code tables.lua} and {@code timed_sweep.lua}: ended claims, swept again on the next
         * round if lost (buckets of event seconds a lost sweep handed out end by their keys' expiry).
         */
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

    /** A subscription on every shard; closing it ends the calls to its listeners. */
    public interface Subscription extends AutoCloseable {

        @Override
        void close();
    }

    /**
     * A Lua script of the Redis tier (resources in {@code dev/dedup/agent/store/redis/}), made of one or more
     * resources concatenated (a part shared by two scripts first), and its SHA-1, by which {@link #eval} calls it. A
     * {@code guarded} script starts with {@code guard.lua}: its last key and last argument are the shard's topology
     * record and its expected value, which {@code topology.GuardedPort} appends.
     */
    record Script(String name, byte[] body, String sha, boolean guarded) {

        /** Where the scripts are: one folder for the whole Redis tier. */
        private static final String SCRIPTS = "/dev/dedup/agent/store/redis/";

        /** The fingerprint layout's claims, releases and look-ups. */
        public static final Script CLAIMS = of("guard.lua", "answers.lua", "records.lua", "claims.lua");
        /** The fingerprint layout's splits and merges of buckets. */
        public static final Script TABLE = of("guard.lua", "records.lua", "table.lua");
        /**
         * The fingerprint layout's sweep of ended claims, behind the topology guard like every script that writes: a
         * shard that lost its record (restarted empty, flushed, replaced) or holds another is not swept.
         */
        public static final Script SWEEP = of("guard.lua", "records.lua", "sweep.lua");
        /** The fingerprint tables a shard holds. */
        public static final Script TABLES = of("tables.lua");
        /** The event-time layout's claims and releases. */
        public static final Script TIMED = of("guard.lua", "answers.lua", "timed.lua");
        /** The event-time layout's end of claims on the event clock: seconds handed out, then their buckets deleted. */
        public static final Script TIMED_SWEEP = of("guard.lua", "timed_sweep.lua");
        /** Committed ranges of ordered streams. */
        public static final Script RANGES = of("guard.lua", "ranges.lua");
        /** Reads or stamps a shard's topology record. */
        public static final Script TOPOLOGY = of("topology.lua");

        /**
         * The first argument of the scripts that take one, saying what the call does with its items: {@code claims.lua}
         * ({@code c}, {@code r}, {@code k}), {@code timed.lua} ({@code c}, {@code r}) and {@code ranges.lua}
         * ({@code k}, {@code m}).
         */
        public enum Mode {
            CLAIM("c", Op.CLAIM),
            RELEASE("r", Op.RELEASE),
            /** {@code claims.lua}, reading only. */
            LOOKUP("k", Op.LOOKUP),
            RANGE_CHECK("k", Op.RANGE_CHECK),
            RANGE_COMMIT("m", Op.RANGE_COMMIT);

            private final byte[] arg;
            private final Op op;

            Mode(String arg, Op op) {
                this.arg = arg.getBytes(StandardCharsets.US_ASCII);
                this.op = op;
            }

            /** The script's {@code ARGV[1]}. */
            public byte[] arg() {
                return arg; // shared: callers pass it to Redis and never write it
            }

            /** What a call in this mode is to the port. */
            public Op op() {
                return op;
            }
        }

        static Script of(String... resources) {
            ByteArrayOutputStream body = new ByteArrayOutputStream();
            for (String resource : resources) {
                try (InputStream in = Script.class.getResourceAsStream(SCRIPTS + resource)) {
                    if (in == null) {
                        throw new IllegalStateException(resource + " is missing from the agent's classpath");
                    }
                    in.transferTo(body);
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            }
            byte[] bytes = body.toByteArray();
            return new Script(resources[resources.length - 1], bytes, sha1Hex(bytes), resources[0].equals("guard.lua"));
        }

        private static String sha1Hex(byte[] bytes) {
            try {
                byte[] digest = MessageDigest.getInstance("SHA-1").digest(bytes);
                StringBuilder sb = new StringBuilder(40);
                for (byte b : digest) {
                    sb.append(Character.forDigit((b >> 4) & 0xf, 16)).append(Character.forDigit(b & 0xf, 16));
                }
                return sb.toString();
            } catch (NoSuchAlgorithmException e) {
                throw new IllegalStateException(e);
            }
        }
    }
}
