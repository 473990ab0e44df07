package dev.dedup.agent.config;

import dev.dedup.agent.config.value.Bounds;
import dev.dedup.agent.config.value.ConfigException;
import java.nio.file.Path;

/**
 * The embedded store: where its file lives, how many slots it has and how many slots share a set.
 *
 * @param dataDir directory of the slot file (created 0700 if missing; an existing one is checked when the store opens)
 * @param slots   capacity in ids; rounded up to a whole number of sets
 * @param ways    slots per set (a full set replaces an expired slot first, else the one expiring soonest)
 */
public record EmbeddedStoreOptions(Path dataDir, long slots, int ways) {

    public static final Path DEFAULT_DATA_DIR = Path.of("dedup-data");
    /** 16 Mi slots: a 256 MiB file that still remembers 90 % of ids after ~9.8 M later ones. */
    public static final long DEFAULT_SLOTS = 1L << 24;

    public static final int DEFAULT_WAYS = 8;
    /** Up to 2^36 slots: a 1 TiB file. */
    public static final Bounds<Long> SLOTS_BOUNDS = Bounds.longs(1024, 1L << 36);

    public static final Bounds<Integer> WAYS_BOUNDS = Bounds.intChoices(4, 8, 16);

    public EmbeddedStoreOptions {
        ConfigException.require(dataDir != null, "data-dir", dataDir, "give a directory");
        SLOTS_BOUNDS.check("embedded-slots", slots);
        WAYS_BOUNDS.check("embedded-ways", ways);
    }

    public static EmbeddedStoreOptions defaults() {
        return new EmbeddedStoreOptions(DEFAULT_DATA_DIR, DEFAULT_SLOTS, DEFAULT_WAYS);
    }

    /** Number of sets: the slots rounded up to a multiple of {@link #ways()}. */
    public long sets() {
        return (slots + ways - 1) / ways;
    }
}
