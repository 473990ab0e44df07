package dev.dedup.agent.config;

/**
 * The near-cache in front of Redis.
 *
 * @param maxEntries ids kept; 0 turns the cache off. Each entry costs about 100 bytes of heap.
 */
public record NearCacheOptions(long maxEntries) {

    /** 256 Ki ids, about 25 MiB of heap. */
    public static final long DEFAULT_MAX_ENTRIES = 1L << 18;

    public NearCacheOptions {
        ConfigException.require(maxEntries >= 0 && maxEntries <= 1L << 30, "near-cache-size", maxEntries,
                "use 0 (off) to 2^30 entries");
    }

    public static NearCacheOptions defaults() {
        return new NearCacheOptions(DEFAULT_MAX_ENTRIES);
    }

    public boolean enabled() {
        return maxEntries > 0;
    }
}
