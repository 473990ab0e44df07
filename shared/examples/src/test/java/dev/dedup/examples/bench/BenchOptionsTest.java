package dev.dedup.examples.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class BenchOptionsTest {

    @Test
    void durationsAsALinkIsWritten_microsecondsAndFractionsOfAMillisecond() {
        assertEquals(Duration.ofNanos(300_000), BenchOptions.duration("--shard-round-trip", "0.3ms"));
        assertEquals(Duration.ofNanos(300_000), BenchOptions.duration("--shard-round-trip", "300us"));
        assertEquals(Duration.ofMillis(1), BenchOptions.duration("--shard-round-trip", "1ms"));
        assertEquals(Duration.ofMinutes(10), BenchOptions.duration("--window", "10m"));
        assertEquals(Duration.ZERO, BenchOptions.duration("--kill-at", "0"));
        IllegalArgumentException e =
                assertThrows(IllegalArgumentException.class, () -> BenchOptions.duration("--shard-jitter", "1 day"));
        assertTrue(e.getMessage().startsWith("--shard-jitter: 1 day is not a duration"), e.getMessage());
    }

    @Test
    void shardDelay_isParsed_andAJitterPastTheRoundTripIsRefused() {
        BenchOptions o = BenchOptions.parse(new String[] {
            "--work", "/tmp/w", "--sides", "ours-redis-3", "--shard-round-trip", "1ms", "--shard-jitter", "0.2ms"
        });
        assertEquals(Duration.ofMillis(1), o.shardRoundTrip());
        assertEquals(Duration.ofNanos(200_000), o.shardJitter());
        assertEquals(
                Duration.ZERO,
                BenchOptions.parse(new String[] {"--work", "/tmp/w"}).shardRoundTrip());
        IllegalArgumentException e = assertThrows(
                IllegalArgumentException.class,
                () -> BenchOptions.parse(new String[] {"--work", "/tmp/w", "--shard-jitter", "1ms"}));
        assertTrue(e.getMessage().startsWith("--shard-jitter: PT0.001S is more than the round trip"), e.getMessage());
    }
}
