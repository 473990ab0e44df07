package dev.dedup.flink;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import org.apache.flink.api.common.serialization.SimpleStringSchema;
import org.junit.jupiter.api.Test;

class DedupBuilderTest {

    @Test
    void settingsOutOfRange_failNamingTheSetting() {
        Dedup.Builder<String> b = Dedup.builder(() -> null);
        assertTrue(assertThrows(IllegalArgumentException.class, () -> b.chunk(0))
                .getMessage()
                .startsWith("chunk:"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> b.flushEvery(Duration.ZERO))
                .getMessage()
                .startsWith("flushEvery:"));
        assertTrue(assertThrows(
                        IllegalArgumentException.class,
                        () -> ClaimableDeserializer.of(new SimpleStringSchema()).idFromHeader(""))
                .getMessage()
                .startsWith("idFromHeader:"));
    }
}
