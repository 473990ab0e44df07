package dev.dedup.agent.store.redis.layout;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** When each range of a table is due: spread over the period, and steady when the table grows or shrinks. */
class RedisSweeperTest {

    private static final long PERIOD = 6 * 3600;
    private static final long DAY_MS = 86_400_000L;

    @Test
    void everyRangeIsDueOncePerPeriod_inOrder() {
        long ranges = 1_000;
        long previous = -1;
        int seen = 0;
        for (long sec = 0; sec < PERIOD; sec++) {
            long r = RedisSweeper.rangeAt((DAY_MS / 1000 * 40 + sec) * 1000, ranges, PERIOD);
            assertTrue(r >= previous && r < ranges, sec + ": " + r);
            if (r != previous) {
                seen++;
            }
            previous = r;
        }
        assertEquals(ranges, seen);
    }

    @Test
    void aTableThatGrowsByOneRange_movesTheRangeDueByLessThanOneRangeInEighty() {
        long now = 1_767_225_600_000L + 5_000_000;
        long before = RedisSweeper.rangeAt(now, 80, PERIOD);
        long after = RedisSweeper.rangeAt(now, 81, PERIOD);
        assertTrue(after - before <= 1, before + " -> " + after);
        long big = RedisSweeper.rangeAt(now, 2_000_000, PERIOD);
        long bigger = RedisSweeper.rangeAt(now, 2_000_001, PERIOD);
        assertTrue(bigger - big <= 1, big + " -> " + bigger);
    }

    @Test
    void thePeriodIsAQuarterWindow_betweenAMinuteAndSixHours() {
        assertEquals(60, RedisSweeper.periodSeconds(60_000));
        assertEquals(900, RedisSweeper.periodSeconds(3_600_000));
        assertEquals(6 * 3600, RedisSweeper.periodSeconds(DAY_MS));
        assertEquals(6 * 3600, RedisSweeper.periodSeconds(365 * DAY_MS));
    }
}
