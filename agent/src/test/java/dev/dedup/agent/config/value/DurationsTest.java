package dev.dedup.agent.config.value;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class DurationsTest {

    @Test
    void parsesEveryUnit() {
        assertEquals(Duration.ofMillis(500), Durations.parse("w", "500ms"));
        assertEquals(Duration.ofSeconds(30), Durations.parse("w", "30s"));
        assertEquals(Duration.ofMinutes(15), Durations.parse("w", "15m"));
        assertEquals(Duration.ofHours(24), Durations.parse("w", "24h"));
        assertEquals(Duration.ofDays(7), Durations.parse("w", "7d"));
    }

    @Test
    void rejectsWhatIsNotADuration() {
        for (String bad : new String[] {"", "24", "h", "-1h", "1.5h", "1 h", "1hour"}) {
            assertThrows(ConfigException.class, () -> Durations.parse("window", bad), bad);
        }
    }

    @Test
    void formatsTheShortestExactForm() {
        assertEquals("24h", Durations.format(Duration.ofHours(24)));
        assertEquals("7d", Durations.format(Duration.ofDays(7)));
        assertEquals("90s", Durations.format(Duration.ofSeconds(90)));
        assertEquals("1500ms", Durations.format(Duration.ofMillis(1500)));
        assertEquals("0s", Durations.format(Duration.ZERO));
    }
}
