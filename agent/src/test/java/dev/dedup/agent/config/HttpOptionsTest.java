package dev.dedup.agent.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dedup.agent.config.value.ConfigException;
import dev.dedup.agent.config.value.Tokens;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

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
        HttpOptions all = every(8080, new OpsOptions("0.0.0.0", 9090));
        assertEquals(all, all.toBuilder().build());
        HttpOptions moved = all.toBuilder().port(8081).ops(null).build();
        assertEquals(every(8081, null), moved);
    }

    /** Options with every setting off its default, but {@code port} and {@code ops} as given. */
    private static HttpOptions every(int port, OpsOptions ops) {
        return new HttpOptions(
                "0.0.0.0",
                port,
                77,
                4096,
                Duration.ofSeconds(5),
                3,
                Duration.ofSeconds(4),
                "0123456789abcdef",
                null,
                "read-0123456789abcdef",
                null,
                true,
                ops,
                64,
                null,
                null);
    }

    @Test
    void aBuilderChecksAsTheRecordDoes_andATokenIsRefusedBelowTheMinimum() {
        String shortToken = "0123456789abcdef".substring(0, Tokens.MIN_LENGTH - 1);
        ConfigException e = assertThrows(
                ConfigException.class,
                () -> HttpOptions.builder().token(shortToken).build());
        assertTrue(e.getMessage().contains(Tokens.RULE), e.getMessage());
        assertFalse(e.getMessage().contains(shortToken), "the token is never printed: " + e.getMessage());
        assertEquals(
                Tokens.MIN_LENGTH,
                HttpOptions.builder()
                        .token("0123456789abcdef".substring(0, Tokens.MIN_LENGTH))
                        .build()
                        .token()
                        .length());
        assertThrows(
                ConfigException.class,
                () -> HttpOptions.builder().host("0.0.0.0").build(),
                "no token");
    }

    @Test
    void aTokenAndItsFileAreOneOrTheOther_andAReadTokenIsNeverAClaimToken(@TempDir Path dir) throws Exception {
        String claim = "claim-token-0123456789";
        Path file = Files.writeString(dir.resolve("token"), claim + "\n");
        ConfigException both = assertThrows(
                ConfigException.class,
                () -> HttpOptions.builder().token(claim).tokenFile(file).build());
        assertTrue(
                both.getMessage().startsWith("token-file: " + file + " is given with token as well"),
                both.getMessage());

        ConfigException same = assertThrows(
                ConfigException.class,
                () -> HttpOptions.builder().tokenFile(file).readToken(claim).build());
        assertTrue(same.getMessage().startsWith("read-token: a read token is also a claim token"), same.getMessage());
        assertFalse(same.getMessage().contains(claim), same.getMessage());

        HttpOptions exposed =
                HttpOptions.builder().host("0.0.0.0").tokenFile(file).build();
        assertTrue(exposed.claimTokenSet(), "a token file is a claim token: a non-loopback host may have it");
        assertFalse(exposed.toString().contains(claim), exposed.toString());

        HttpOptions readOnly =
                HttpOptions.builder().readToken("read-token-0123456789").build();
        assertFalse(readOnly.claimTokenSet());
        assertTrue(readOnly.anyTokenSet());
        assertThrows(
                ConfigException.class,
                () -> HttpOptions.builder()
                        .host("0.0.0.0")
                        .readToken("read-token-0123456789")
                        .build(),
                "a read token does not guard the claim API");
    }
}
