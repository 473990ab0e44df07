package dev.dedup.agent.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The HTTP options' builder: its defaults, a copy changed in one setting, and the checks it shares with the record. */
class HttpOptionsTest {

    @Test
    void aBuilderStartsAtTheDefaults() {
        HttpOptions built = HttpOptions.builder().build();
        assertEquals(HttpOptions.DEFAULT_HOST, built.host());
        assertEquals(HttpOptions.DEFAULT_PORT, built.port());
        assertEquals(HttpOptions.DEFAULT_MAX_BATCH, built.maxBatch());
        assertEquals(HttpOptions.DEFAULT_MAX_BODY, built.maxBody());
        assertEquals(HttpOptions.DEFAULT_IDLE_TIMEOUT, built.idleTimeout());
        assertEquals(HttpOptions.defaultEventLoops(), built.eventLoops());
        assertEquals(HttpOptions.DEFAULT_SHUTDOWN_GRACE, built.shutdownGrace());
        assertNull(built.token());
        assertNull(built.ops());
        assertEquals(HttpOptions.defaults(), built);
    }

    @Test
    void toBuilder_keepsEverySetting_butTheOnesChanged() {
        HttpOptions all = new HttpOptions(
                "0.0.0.0",
                8080,
                77,
                4096,
                Duration.ofSeconds(5),
                3,
                Duration.ofSeconds(4),
                "0123456789abcdef",
                true,
                new OpsOptions("0.0.0.0", 9090),
                64);
        assertEquals(all, all.toBuilder().build());
        HttpOptions moved = all.toBuilder().port(8081).ops(null).build();
        assertEquals(
                new HttpOptions(
                        "0.0.0.0",
                        8081,
                        77,
                        4096,
                        Duration.ofSeconds(5),
                        3,
                        Duration.ofSeconds(4),
                        "0123456789abcdef",
                        true,
                        null,
                        64),
                moved);
    }

    @Test
    void aBuilderChecksAsTheRecordDoes_andATokenIsRefusedBelowTheMinimum_thatTheHelpStates() {
        String shortToken = "x".repeat(HttpOptions.MIN_TOKEN_LENGTH - 1);
        ConfigException e = assertThrows(
                ConfigException.class,
                () -> HttpOptions.builder().token(shortToken).build());
        assertTrue(e.getMessage().contains("at least " + HttpOptions.MIN_TOKEN_LENGTH + " "), e.getMessage());
        assertEquals(
                HttpOptions.MIN_TOKEN_LENGTH,
                HttpOptions.builder()
                        .token("x".repeat(HttpOptions.MIN_TOKEN_LENGTH))
                        .build()
                        .token()
                        .length());
        assertThrows(
                ConfigException.class,
                () -> HttpOptions.builder().host("0.0.0.0").build(),
                "no token");

        Setting token = Settings.ALL.stream()
                .filter(s -> s.name().equals("token"))
                .findFirst()
                .orElseThrow();
        assertTrue(token.doc().contains("at least " + HttpOptions.MIN_TOKEN_LENGTH + " printable"), token.doc());
        assertTrue(Settings.help().contains("at least " + HttpOptions.MIN_TOKEN_LENGTH + " printable"));
    }
}
