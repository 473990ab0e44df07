package dev.dedup.agent.store.redis.layout;

import dev.dedup.agent.store.redis.access.RedisKeys;

/**
 * A fingerprint table's record, and the item a claim call carries for one, byte by byte: the Java side of {@code
 * records.lua}, whose header describes the record (16 bytes: the id's 7-byte field, the 16 bits of its route above
 * the table's base bits, the owner's 28-bit tag and the second its claim ends, modulo 2^28). An id's 64-bit route
 * places it: its high half picks the shard, its low half the bucket. An item is the record behind a u16 key index
 * (1-based: the bucket's key among the call's keys) and the low 16 bits of the route, by which {@code claims.lua}
 * finds a bucket that moved.
 */
final class FingerprintRecord {

    static final int FIELD_BYTES = 7;
    /** u16 key index, u16 low bits of the route, the 16-byte record. */
    static final int ITEM_BYTES = 20;
    /** Where an item's field starts. */
    static final int FIELD_AT = 4;
    /** Route bits a record keeps above the base: what a table can split by. */
    static final int ROUTE_BITS = 16;

    static final int OWNER_TAG_BITS = 28;
    /** Ends of claims are kept modulo this many seconds (8.5 years). */
    static final long END_RANGE = 1L << 28;

    private FingerprintRecord() {}

    /** What places an id among shards: the high half of its route. */
    static long shardKey(long route) {
        return route >>> 32;
    }

    /** What places an id in its shard's table: the low half of its route. */
    static long lowRoute(long route) {
        return route & 0xffff_ffffL;
    }

    static int ownerTag(long ownerFingerprint) {
        int tag = (int) (ownerFingerprint & ((1 << OWNER_TAG_BITS) - 1));
        return tag == 0 ? 1 : tag;
    }

    /** A record's last 7 bytes as a long: the owner's tag, then the second its claim ends (modulo 2^28). */
    static long ownerAndEnd(int ownerTag, long endSecond) {
        return ((long) ownerTag << OWNER_TAG_BITS) | endSecond;
    }

    /** Now as the scripts compare ends with it: whole seconds modulo 2^28, in ASCII. */
    static byte[] now(long nowMillis) {
        return RedisKeys.ascii(Math.floorMod(Math.floorDiv(nowMillis, 1000L), END_RANGE));
    }

    /**
     * Writes one item at {@code at}: u16 key index (1-based), the low 16 bits of the route, then the record: the
     * 7-byte field, the route's 16 bits above the base, the 7-byte owner tag and end.
     */
    static void item(byte[] a, int at, int keyIndex, long key, long route, int baseBits, long value) {
        a[at] = (byte) (keyIndex >>> 8);
        a[at + 1] = (byte) keyIndex;
        a[at + 2] = (byte) (route >>> 8);
        a[at + 3] = (byte) route;
        for (int i = 0; i < FIELD_BYTES; i++) {
            a[at + 4 + i] = (byte) (key >>> (56 - 8 * i));
        }
        long high = route >>> baseBits;
        a[at + 11] = (byte) (high >>> 8);
        a[at + 12] = (byte) high;
        for (int i = 0; i < 7; i++) {
            a[at + 13 + i] = (byte) (value >>> (48 - 8 * i));
        }
    }
}
