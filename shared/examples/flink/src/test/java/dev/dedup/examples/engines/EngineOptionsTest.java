package dev.dedup.examples.engines;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class EngineOptionsTest {

    @Test
    void sidesByLabel_andEverySideByDefault() {
        EngineOptions o = EngineOptions.parse(
                new String[] {"--work", "/tmp/w", "--sides", "flink-ours, streams-own", "--kill-at", "45s"});
        assertEquals(List.of(EngineSide.FLINK_OURS, EngineSide.STREAMS_OWN), o.sides());
        assertEquals(Duration.ofSeconds(45), o.killAt());
        assertEquals(
                List.of(EngineSide.values()),
                EngineOptions.parse(new String[] {"--work", "/tmp/w"}).sides());
    }

    @Test
    void aBadSideOrAKillAfterTheStream_isRefusedByName() {
        IllegalArgumentException side = assertThrows(
                IllegalArgumentException.class,
                () -> EngineOptions.parse(new String[] {"--work", "/tmp/w", "--sides", "flink"}));
        assertTrue(side.getMessage().startsWith("--sides: flink is none of flink-own-heap"), side.getMessage());
        IllegalArgumentException kill = assertThrows(
                IllegalArgumentException.class,
                () -> EngineOptions.parse(new String[] {"--work", "/tmp/w", "--duration", "2m", "--kill-at", "2m"}));
        assertTrue(kill.getMessage().startsWith("--kill-at: PT2M is not within"), kill.getMessage());
    }

    @Test
    void agentSlots_sixTimesTheIdsOfAWindow() {
        assertEquals(360_000, EngineRun.slots(1_000, Duration.ofMinutes(1)));
        assertEquals(1024, EngineRun.slots(1, Duration.ofSeconds(2)));
    }
}
