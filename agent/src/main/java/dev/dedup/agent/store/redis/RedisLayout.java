package dev.dedup.agent.store.redis;

import dev.dedup.codec.Batch;
import dev.dedup.routing.JumpHash;
import java.nio.charset.StandardCharsets;

/**
 * Where and how a claim is written in Redis.
 *
 * <p>An id's route half chooses its <b>bucket</b> (one of {@code buckets}) and the bucket its
 * <b>shard</b> (jump hash). A bucket is a Redis hash {@code <prefix>{<4-byte bucket>}}; when it holds
 * {@code levelEntries} claims the next ones go to a second level, the same key plus one byte, and so on,
 * so each level stays a listpack whatever the volume. The braces make every level of a bucket one Redis
 * Cluster hash slot.
 *
 * <p>A claim is one hash entry: the field is the top 56 bits of the id's key (7 bytes), the value 6
 * bytes, a 28-bit owner tag and the 20-bit second its claim expires, compared modulo 2^20 (12 days; windows are capped at 5
 * days, every bucket is swept of expired claims hourly and level keys expire 5 days and 2 hours after
 * their last write or sweep, so a stale expiry never passes for a live one). A 7-byte field and a 6-byte
 * value make ~18.3 bytes of Redis memory per claim, measured (an 8-byte field and a 6-byte value, 20.9:
 * listpacks grow in steps). An unclaimed id is taken for a claimed one with probability at most
 * {@code level-entries / 2^56} (5·10⁻¹⁵ per id at 384); two owners of one id share a tag with probability
 * {@code 2^-28}, which answers a duplicate {@code retry} (processed twice, never dropped).
 *
 * <p>A level beyond the first holds claims only while every level before it is full, so while the first
 * level of a bucket has room an id can only be there.
 */
final class RedisLayout {

    /** Seconds of expiry kept: 2^20. */
    static final int EXPIRY_RANGE = 1 << 20;
    static final int OWNER_TAG_BITS = 28;
    static final int FIELD_BYTES = 7;
    /** u16 key index, 7-byte field, 6-byte value. */
    static final int ITEM_BYTES = 15;

    private final int buckets;
    private final int shards;
    private final byte[] prefix;

    RedisLayout(int buckets, int shards, String keyPrefix) {
        this.buckets = buckets;
        this.shards = shards;
        this.prefix = keyPrefix.getBytes(StandardCharsets.US_ASCII);
    }

    int bucket(long route) {
        return (int) Long.remainderUnsigned(route, buckets);
    }

    int shard(int bucket) {
        return JumpHash.shard(bucket, shards);
    }

    int shards() {
        return shards;
    }

    /** {@code <prefix>{<bucket, 4 bytes big-endian>}}: level 0 of a bucket. */
    byte[] bucketKey(int bucket) {
        return hashTagged(prefix, "", bucket, 4);
    }

    /**
     * {@code <prefix>{<marker><the low `bytes` bytes of value, big-endian>}}: a key whose braces make it
     * (and its levels, the same key plus one byte) one Redis Cluster hash slot.
     */
    static byte[] hashTagged(byte[] prefix, String marker, long value, int bytes) {
        byte[] key = new byte[prefix.length + marker.length() + bytes + 2];
        System.arraycopy(prefix, 0, key, 0, prefix.length);
        int at = prefix.length;
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

    /** The batch's items in this layout, each with the claim's {@code expiry}, for {@link ShardCalls}. */
    ShardCalls.Packing packing(Batch batch, int expiry) {
        return new ShardCalls.Packing() {
            @Override
            public long bucket(int i) {
                return RedisLayout.this.bucket(batch.route(i));
            }

            @Override
            public int shard(long bucket) {
                return RedisLayout.this.shard((int) bucket);
            }

            @Override
            public byte[] key(long bucket) {
                return bucketKey((int) bucket);
            }

            @Override
            public int itemBytes() {
                return ITEM_BYTES;
            }

            @Override
            public void write(byte[] items, int at, int keyIndex, int i) {
                item(items, at, keyIndex, batch.key(i), ownerTag(batch.owner(i)), expiry);
            }
        };
    }

    /** The marker of sweep range {@code rangeIndex}: which slot was last swept. One per shard. */
    byte[] sweepMarker(int rangeIndex) {
        return (new String(prefix, StandardCharsets.US_ASCII) + ":sweep:" + rangeIndex).getBytes(StandardCharsets.US_ASCII);
    }

    /** The channel on which released fields are published. */
    byte[] releaseChannel() {
        return (new String(prefix, StandardCharsets.US_ASCII) + ":released").getBytes(StandardCharsets.US_ASCII);
    }

    static int ownerTag(long ownerFingerprint) {
        return (int) (ownerFingerprint & ((1 << OWNER_TAG_BITS) - 1));
    }

    /** The second a claim made at {@code nowMillis} for {@code windowMillis} ends, rounded up, modulo 2^20. */
    static int expiry(long nowMillis, long windowMillis) {
        long end = -Math.floorDiv(-(nowMillis + windowMillis), 1000L);
        return (int) Math.floorMod(end, (long) EXPIRY_RANGE);
    }

    /** Writes one item at {@code at}: u16 key index (1-based), the 7-byte field, the 6-byte value. */
    static void item(byte[] a, int at, int keyIndex, long key, int ownerTag, int expiry) {
        a[at] = (byte) (keyIndex >>> 8);
        a[at + 1] = (byte) keyIndex;
        for (int i = 0; i < FIELD_BYTES; i++) {
            a[at + 2 + i] = (byte) (key >>> (56 - 8 * i));
        }
        long value = ((long) ownerTag << 20) | expiry;
        for (int i = 0; i < 6; i++) {
            a[at + 9 + i] = (byte) (value >>> (40 - 8 * i));
        }
    }

}
