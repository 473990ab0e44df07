package dev.dedup.agent.store.redis;

import java.nio.charset.StandardCharsets;

/**
 * The names of everything the agent keeps in Redis, all starting with the configured prefix: bucket keys,
 * whose braces make every level of a bucket one Redis Cluster hash slot; the release channel; the sweep
 * markers.
 */
final class RedisKeys {

    private final String prefix;
    private final byte[] prefixBytes;

    RedisKeys(String prefix) {
        this.prefix = prefix;
        this.prefixBytes = prefix.getBytes(StandardCharsets.US_ASCII);
    }

    /**
     * {@code <prefix>{<marker><the low `bytes` bytes of value, big-endian>}}: a key whose braces make it
     * (and its levels, the same key plus one byte) one Redis Cluster hash slot.
     */
    byte[] hashTagged(String marker, long value, int bytes) {
        byte[] key = new byte[prefixBytes.length + marker.length() + bytes + 2];
        System.arraycopy(prefixBytes, 0, key, 0, prefixBytes.length);
        int at = prefixBytes.length;
        key[at++] = '{';
        for (int i = 0; i < marker.length(); i++) {
            key[at++] = (byte) marker.charAt(i);
        }
        for (int b = bytes - 1; b >= 0; b--) {
            key[at++] = (byte) (value >>> (8 * b));
        }
        key[at] = '}';
        return key;
    }

    /**
     * {@code <prefix>{r<8-byte hash of ns and stream>}<ns>\0<stream>}: the committed ranges of one stream.
     * The hash tag puts the key in one Redis Cluster slot; the names after it keep streams apart whatever
     * their hashes.
     */
    byte[] rangeKey(String namespace, String stream, long hash) {
        byte[] tagged = hashTagged("r", hash, 8);
        byte[] ns = namespace.getBytes(StandardCharsets.UTF_8);
        byte[] s = stream.getBytes(StandardCharsets.UTF_8);
        byte[] key = java.util.Arrays.copyOf(tagged, tagged.length + ns.length + 1 + s.length);
        System.arraycopy(ns, 0, key, tagged.length, ns.length);
        System.arraycopy(s, 0, key, tagged.length + ns.length + 1, s.length);
        return key;
    }

    /** The channel on which every layout publishes released fields (7 bytes each, concatenated). */
    byte[] releaseChannel() {
        return (prefix + ":released").getBytes(StandardCharsets.US_ASCII);
    }

    /** Each shard's record of the topology it belongs to ({@link Topology}). */
    byte[] topology() {
        return (prefix + ":topology").getBytes(StandardCharsets.US_ASCII);
    }

    /** The marker of sweep range {@code range}: which slot was last swept. One per shard. */
    byte[] sweepMarker(int range) {
        return (prefix + ":sweep:" + range).getBytes(StandardCharsets.US_ASCII);
    }

    /** A number as the ASCII digits a script argument carries. */
    static byte[] ascii(long n) {
        return Long.toString(n).getBytes(StandardCharsets.US_ASCII);
    }
}
