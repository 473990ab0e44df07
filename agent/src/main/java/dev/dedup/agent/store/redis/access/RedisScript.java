package dev.dedup.agent.store.redis.access;

import dev.dedup.agent.store.redis.access.RedisPort.Op;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;

/**
 * A Lua script of the Redis tier (resources in {@code dev/dedup/agent/store/redis/}), made of one or more resources concatenated (a part shared by two
 * scripts first), and its SHA-1, by which {@link RedisPort#eval} calls it. A {@code guarded} script starts
 * with {@code guard.lua}: its last key and last argument are the shard's topology record and its expected
 * value, which {@code topology.GuardedPort} appends.
 */
public record RedisScript(String name, byte[] body, String sha, boolean guarded) {

    /** The fingerprint layout's claims, releases and look-ups. */
    /** Where the scripts are: one folder for the whole Redis tier. */
    private static final String SCRIPTS = "/dev/dedup/agent/store/redis/";

    public static final RedisScript CLAIMS = of("guard.lua", "answers.lua", "records.lua", "claims.lua");
    /** The fingerprint layout's splits and merges of buckets. */
    public static final RedisScript TABLE = of("guard.lua", "records.lua", "table.lua");
    /**
     * The fingerprint layout's sweep of ended claims, behind the topology guard like every script that writes: a
     * shard that lost its record (restarted empty, flushed, replaced) or holds another is not swept.
     */
    public static final RedisScript SWEEP = of("guard.lua", "records.lua", "sweep.lua");
    /** The fingerprint tables a shard holds. */
    public static final RedisScript TABLES = of("tables.lua");
    /** The event-time layout's claims and releases. */
    public static final RedisScript TIMED = of("guard.lua", "answers.lua", "timed.lua");
    /** Committed ranges of ordered streams. */
    public static final RedisScript RANGES = of("guard.lua", "ranges.lua");
    /** Reads or stamps a shard's topology record. */
    public static final RedisScript TOPOLOGY = of("topology.lua");

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

    static RedisScript of(String... resources) {
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        for (String resource : resources) {
            try (InputStream in = RedisScript.class.getResourceAsStream(SCRIPTS + resource)) {
                if (in == null) {
                    throw new IllegalStateException(resource + " is missing from the agent's classpath");
                }
                in.transferTo(body);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        byte[] bytes = body.toByteArray();
        return new RedisScript(
                resources[resources.length - 1], bytes, sha1Hex(bytes), resources[0].equals("guard.lua"));
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
