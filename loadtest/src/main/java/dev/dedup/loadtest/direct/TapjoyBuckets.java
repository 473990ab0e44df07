package dev.dedup.loadtest.direct;

import java.nio.charset.StandardCharsets;
import java.util.zip.CRC32;

/**
 * Tapjoy's layout: a message goes to the bucket of its own second and a slice of it, {@code
 * "<10-digit second>:<3-digit slice>"} (the article's 14-byte bucket key), where the slice is the id's hash
 * modulo the slices per second, planned for 100 ids per bucket at the expected rate (the article's
 * {@code buckets_per_sec = keys_per_second / keys_per_bucket}); the shard is a hash of the bucket key
 * modulo the number of shards.
 */
final class TapjoyBuckets {

    /** The article's target bucket size. */
    static final int IDS_PER_BUCKET = 100;
    /** The first second of the run's event time: a 10-digit epoch second like the article's timestamps. */
    static final long EPOCH_SECOND = 1_700_000_000L;

    static final int KEY_BYTES = 14;

    private final int slices;
    private final int shards;

    /** {@code eventsPerSecond}: the planned rate the slices are sized for. */
    TapjoyBuckets(int eventsPerSecond, int shards) {
        this.slices = Math.max(1, (eventsPerSecond + IDS_PER_BUCKET - 1) / IDS_PER_BUCKET);
        if (slices > 1000) {
            throw new IllegalArgumentException("a 3-digit slice allows at most 1000 slices, not " + slices);
        }
        this.shards = shards;
    }

    int slices() {
        return slices;
    }

    /** The bucket's number: second * slices + slice. {@code idHigh} is the first 8 bytes of the 16-byte id. */
    long bucket(int eventSecond, long idHigh, long idLow) {
        long h = (idHigh ^ Long.rotateLeft(idLow, 29)) * 0x9E3779B97F4A7C15L;
        int slice = (int) Long.remainderUnsigned(h >>> 16, slices);
        return (long) eventSecond * slices + slice;
    }

    byte[] key(long bucket) {
        long second = EPOCH_SECOND + bucket / slices;
        int slice = (int) (bucket % slices);
        byte[] key = new byte[KEY_BYTES];
        for (int i = 9; i >= 0; i--) {
            key[i] = (byte) ('0' + second % 10);
            second /= 10;
        }
        key[10] = ':';
        key[11] = (byte) ('0' + slice / 100);
        key[12] = (byte) ('0' + slice / 10 % 10);
        key[13] = (byte) ('0' + slice % 10);
        return key;
    }

    int shard(byte[] key) {
        CRC32 crc = new CRC32();
        crc.update(key);
        return (int) (crc.getValue() % shards);
    }

    static String describe(byte[] key) {
        return new String(key, StandardCharsets.US_ASCII);
    }
}
