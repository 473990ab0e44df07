package dev.dedup.agent.store.redis;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;

/**
 * A Lua script beside this class, made of one or more resources concatenated (a part shared by two
 * scripts first), and its SHA-1, by which {@link RedisPort#eval} calls it.
 */
record RedisScript(String name, byte[] body, String sha) {

    /** The fingerprint layout's claims and releases: {@code levels.lua} then {@code dedup.lua}. */
    static final RedisScript DEDUP = of("levels.lua", "dedup.lua");
    /** The fingerprint layout's hourly sweep: {@code levels.lua} then {@code sweep.lua}. */
    static final RedisScript SWEEP = of("levels.lua", "sweep.lua");
    /** The event-time layout's claims and releases. */
    static final RedisScript TIMED = of("timed.lua");
    /** Committed ranges of ordered streams. */
    static final RedisScript RANGES = of("ranges.lua");

    static RedisScript of(String... resources) {
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        for (String resource : resources) {
            try (InputStream in = RedisScript.class.getResourceAsStream(resource)) {
                if (in == null) {
                    throw new IllegalStateException(resource + " is missing from the agent's classpath");
                }
                in.transferTo(body);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        byte[] bytes = body.toByteArray();
        return new RedisScript(resources[resources.length - 1], bytes, sha1Hex(bytes));
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
