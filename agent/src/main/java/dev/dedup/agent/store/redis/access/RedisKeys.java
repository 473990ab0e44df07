package dev.dedup.agent.store.redis.access;

import java.nio.charset.StandardCharsets;

/**
 * How every name the agent keeps in Redis starts: the configured prefix, and on a Redis Cluster the group's hash
 * tag ({@link #named}, {@link #hashTagged}); and the one name all layouts share, the release channel. Each family
 * of keys is named by the package that owns it, through these: the fingerprint tables' states, sets, buckets and
 * sweep markers, the event-time buckets and the streams' ranges in {@code layout}, the shards' records in {@code
 * topology}.
 *
 * <p>On standalone shards ({@link #RedisKeys(String)}) a key does not depend on its shard. On a Redis
 * Cluster ({@link #clustered}) the port's "shards" are groups, and every key of group {@code g} starts with
 * {@code <prefix>{<group g's tag>}}, the rest naming the bucket, stream or record after the braces: all keys
 * of a group are one hash slot, so any of the group's keys may go together in one script call. Group
 * {@code g}'s tag is {@code g<g>.<n>} with the smallest {@code n} whose slot is {@link #groupSlot(int)
 * g's bits reversed}, so that the first {@code 2^k} groups are evenly spaced over the 16,384 slots whatever
 * {@code k}: a cluster whose masters hold even ranges of slots holds even shares of groups.
 */
public final class RedisKeys {

    /** Hash slots of a Redis Cluster. */
    static final int SLOTS = 16384;

    private final String prefix;
    private final byte[] prefixBytes;
    /** Per group, {@code <prefix>{<tag>}}; null on standalone shards. */
    private final byte[][] groupHeads;

    public RedisKeys(String prefix) {
        this(prefix, null);
    }

    private RedisKeys(String prefix, byte[][] groupHeads) {
        this.prefix = prefix;
        this.prefixBytes = prefix.getBytes(StandardCharsets.US_ASCII);
        this.groupHeads = groupHeads;
    }

    /** The keys of a Redis Cluster's {@code groups} groups. */
    public static RedisKeys clustered(String prefix, int groups) {
        byte[][] heads = new byte[groups][];
        for (int g = 0; g < groups; g++) {
            heads[g] = (prefix + "{" + groupTag(g) + "}").getBytes(StandardCharsets.US_ASCII);
        }
        return new RedisKeys(prefix, heads);
    }

    /** Whether keys carry their group's tag (a Redis Cluster). */
    public boolean clustered() {
        return groupHeads != null;
    }

    /** The slot group {@code g} lives in: the 14 bits of {@code g} reversed (van der Corput order). */
    public static int groupSlot(int group) {
        return Integer.reverse(group) >>> (32 - 14);
    }

    /** Group {@code g}'s hash tag: {@code g<g>.<n>}, the first {@code n} whose slot is {@link #groupSlot}. */
    static String groupTag(int group) {
        int slot = groupSlot(group);
        for (int n = 0; ; n++) {
            String tag = "g" + group + "." + n;
            if (slot(tag.getBytes(StandardCharsets.US_ASCII)) == slot) {
                return tag;
            }
        }
    }

    /** A Redis Cluster key's hash slot: CRC16 (XMODEM) of its hash tag, or of the whole key without one. */
    static int slot(byte[] key) {
        int from = 0;
        int to = key.length;
        for (int open = 0; open < key.length; open++) {
            if (key[open] == '{') {
                for (int close = open + 1; close < key.length; close++) {
                    if (key[close] == '}') {
                        if (close > open + 1) {
                            from = open + 1;
                            to = close;
                        }
                        break;
                    }
                }
                break;
            }
        }
        int crc = 0;
        for (int i = from; i < to; i++) {
            crc ^= (key[i] & 0xff) << 8;
            for (int b = 0; b < 8; b++) {
                crc = (crc & 0x8000) != 0 ? (crc << 1) ^ 0x1021 : crc << 1;
            }
        }
        return (crc & 0xffff) % SLOTS;
    }

    /** {@code head} followed by {@code rest}. */
    private static byte[] join(byte[] head, byte[] rest) {
        byte[] key = java.util.Arrays.copyOf(head, head.length + rest.length);
        System.arraycopy(rest, 0, key, head.length, rest.length);
        return key;
    }

    /**
     * {@code <prefix>{<marker><the low `bytes` bytes of value, big-endian>}}: a key whose braces make it
     * (and its levels, the same key plus one byte) one Redis Cluster hash slot. On a cluster, {@code
     * <prefix>{<tag of group shard>}<marker><value's bytes>}.
     */
    public byte[] hashTagged(int shard, String marker, long value, int bytes) {
        if (groupHeads != null) {
            byte[] rest = new byte[marker.length() + bytes];
            int at = 0;
            for (int i = 0; i < marker.length(); i++) {
                rest[at++] = (byte) marker.charAt(i);
            }
            for (int b = bytes - 1; b >= 0; b--) {
                rest[at++] = (byte) (value >>> (8 * b));
            }
            return join(groupHeads[shard], rest);
        }
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

    /** The channel on which every layout publishes released fields (7 bytes each, concatenated). */
    public byte[] releaseChannel() {
        return (prefix + ":released").getBytes(StandardCharsets.US_ASCII);
    }

    /**
     * {@code <prefix><name>} on standalone shards, {@code <prefix>{<group tag>}<name>} on a cluster: a key of one
     * shard (one group) that the package owning it names.
     */
    public byte[] named(int shard, String name) {
        byte[] rest = name.getBytes(StandardCharsets.US_ASCII);
        return groupHeads == null ? join(prefixBytes, rest) : join(groupHeads[shard], rest);
    }

    /** A number as the ASCII digits a script argument carries. */
    public static byte[] ascii(long n) {
        return Long.toString(n).getBytes(StandardCharsets.US_ASCII);
    }
}
