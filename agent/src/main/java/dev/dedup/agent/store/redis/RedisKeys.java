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

    /**
     * The marker set on a unit's new shard when a change of the shard list moved it there ({@link Moves}): the
     * unit's key up to the end of its hash tag ({@code tagEnd} bytes, or {@link #RANGE_TAG_BYTES} for a range
     * key), {@code :moved:}, then the rest of the key. In the unit's hash slot; no key of a layout has a
     * {@code :} after its tag (namespaces have none).
     */
    byte[] movedMarker(byte[] key, int tagEnd) {
        int end = tagEnd == RANGE_TAG_BYTES ? prefixBytes.length + 11 : tagEnd;
        byte[] moved = ":moved:".getBytes(StandardCharsets.US_ASCII);
        byte[] marker = new byte[key.length + moved.length];
        System.arraycopy(key, 0, marker, 0, end);
        System.arraycopy(moved, 0, marker, end, moved.length);
        System.arraycopy(key, end, marker, end + moved.length, key.length - end);
        return marker;
    }

    /** Marks {@link #movedMarker}'s {@code tagEnd} as a range key's. */
    static final int RANGE_TAG_BYTES = -1;

    /** Whether a key SCAN found is a stream's ranges ({@link #rangeKey}), not a bucket or a marker. */
    boolean isRangeKey(byte[] key) {
        int p = prefixBytes.length;
        if (key.length <= p + 11 || key[p] != '{' || key[p + 1] != 'r' || key[p + 10] != '}' || key[p + 11] == ':') {
            return false;
        }
        for (int i = 0; i < p; i++) {
            if (key[i] != prefixBytes[i]) {
                return false;
            }
        }
        return true;
    }

    /** The stream hash in a range key's tag. */
    long rangeHashOf(byte[] key) {
        long h = 0;
        for (int i = 0; i < 8; i++) {
            h = (h << 8) | (key[prefixBytes.length + 2 + i] & 0xff);
        }
        return h;
    }

    /** A SCAN pattern that matches every range key (and, by the tag's first byte, some others to filter). */
    byte[] rangeKeyPattern() {
        StringBuilder p = new StringBuilder();
        for (char c : prefix.toCharArray()) {
            if ("*?[]\\".indexOf(c) >= 0) {
                p.append('\\');
            }
            p.append(c);
        }
        return p.append("{r*").toString().getBytes(StandardCharsets.US_ASCII);
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
