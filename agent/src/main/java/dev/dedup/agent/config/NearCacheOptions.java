package dev.dedup.agent.config;

import dev.dedup.agent.config.value.Bounds;

/**
 * The near-cache in front of Redis.
 *
 * @param maxEntries ids kept; 0 turns the cache off. Each costs 16 bytes of heap, taken in pages of 16,384 ids
 *     (256 KiB) as claims first fall into them.
 */
public record NearCacheOptions(long maxEntries) {

    /** 1 Mi ids, 16 MiB of heap. */
    public static final long DEFAULT_MAX_ENTRIES = 1L << 20;
    /** Up to 512 Mi ids, 8 GiB of heap; 0 turns the cache off. */
    public static final Bounds<Long> SIZE_BOUNDS =
            Bounds.longs(8, 1L << 29).orOff(0L).in("entries");

    public NearCacheOptions {
        SIZE_BOUNDS.check("near-cache-size", maxEntries);
    }

    public static NearCacheOptions defaults() {
        return new NearCacheOptions(DEFAULT_MAX_ENTRIES);
    }

    public boolean enabled() {
        return maxEntries > 0;
    }
}
