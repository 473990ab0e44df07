package dev.dedup.agent.config.value;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/** Bounds on their own: what they accept, and how a message and the configuration page write them. */
class BoundsTest {

    @Test
    void aRange_includesBothEnds() {
        Bounds<Integer> b = Bounds.ints(1, 256);
        assertTrue(b.accepts(1) && b.accepts(256));
        assertFalse(b.accepts(0) || b.accepts(257) || b.accepts(null));
        assertEquals("1 to 256", b.describe());
        assertEquals("1 to 256", b.markdown());
    }

    @Test
    void aMessageWritesNumbersAsTheLoaderReadsThem_thePageToBeRead() {
        Bounds<Integer> rate = Bounds.ints(1, 100_000_000).in("ids per second");
        assertEquals("1 to 100000000 ids per second", rate.describe());
        assertEquals("1 to 100,000,000 ids per second", rate.markdown());
        Bounds<Long> body = Bounds.sizes(64, 1L << 30);
        assertEquals("64 bytes to 1GiB", body.describe());
        assertEquals("64 bytes to `1GiB`", body.markdown());
        Bounds<Duration> window = Bounds.durations(Duration.ofSeconds(1), Duration.ofDays(365));
        assertEquals("1s to 365d", window.describe());
        assertEquals("`1s` to `365d`", window.markdown());
    }

    @Test
    void aLowerBoundAlone_isAtLeast() {
        Bounds<Duration> timeout = Bounds.durationsFrom(Duration.ofMillis(10));
        assertTrue(timeout.accepts(Duration.ofDays(1000)));
        assertFalse(timeout.accepts(Duration.ofMillis(9)));
        assertEquals("at least 10ms", timeout.describe());
        assertEquals("at least `10ms`", timeout.markdown());
    }

    @Test
    void anOffValue_isAcceptedBesideTheRange() {
        Bounds<Long> cache = Bounds.longs(8, 1L << 29).orOff(0L).in("entries");
        assertTrue(cache.accepts(0L) && cache.accepts(8L) && cache.accepts(1L << 29));
        assertFalse(cache.accepts(1L) || cache.accepts((1L << 29) + 1));
        assertEquals("0 (off) or 8 to 536870912 entries", cache.describe());
        assertEquals("0 (off) or 8 to 2^29 entries", cache.markdown());
    }

    @Test
    void powersOfTwo_andChoices() {
        Bounds<Integer> groups = Bounds.ints(1, 1024).powersOfTwo();
        assertTrue(groups.accepts(1) && groups.accepts(32) && groups.accepts(1024));
        assertFalse(groups.accepts(48) || groups.accepts(2048) || groups.accepts(0));
        assertEquals("a power of two from 1 to 1024", groups.describe());
        Bounds<Integer> ways = Bounds.intChoices(4, 8, 16);
        assertTrue(ways.accepts(8));
        assertFalse(ways.accepts(12));
        assertEquals("4, 8 or 16", ways.describe());
    }

    @Test
    void aValueOutOfBounds_failsNamingTheSettingTheValueAndTheBounds() {
        ConfigException e = assertThrows(
                ConfigException.class, () -> Bounds.sizes(64, 1L << 30).check("max-body", 2L << 30));
        assertEquals("max-body: 2GiB is not valid; use 64 bytes to 1GiB", e.getMessage());
        assertEquals(64L, Bounds.sizes(64, 1L << 30).check("max-body", 64L));
    }
}
