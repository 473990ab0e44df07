package dev.dedup.agent.check;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class SetupCheckTest {

    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();

    private int run(List<String> args, Map<String, String> env) {
        return SetupCheck.run(
                args,
                env,
                new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
    }

    @Test
    void anAgentOnTheEmbeddedStoreAnswersAsTheContractSays() {
        assertEquals(0, run(List.of("--embedded-slots", "65536"), Map.of()), err.toString(StandardCharsets.UTF_8));
        String said = out.toString(StandardCharsets.UTF_8);
        assertTrue(said.contains("passed (" + (SetupCheck.ROUNDS * 3 + 4) + " requests, store embedded)"), said);
    }

    @Test
    void aTokenFromTheEnvironmentIsSentWithEveryRequest() {
        assertEquals(
                0,
                run(List.of("--embedded-slots", "65536"), Map.of("DEDUP_TOKEN", "self-test-token-0123456789")),
                err.toString(StandardCharsets.UTF_8));
    }

    @Test
    void aBadSettingExitsTwoNamingIt() {
        assertEquals(2, run(List.of("--window", "forever"), Map.of()));
        assertTrue(err.toString(StandardCharsets.UTF_8).contains("window"), err.toString(StandardCharsets.UTF_8));
    }

    @Test
    void aRedisNobodyListensOnIsACannotRunNotAPass() {
        // port 1 on loopback: nothing listens there, the connection is refused at once
        int status = run(List.of("--redis", "redis://127.0.0.1:1", "--redis-timeout", "1s"), Map.of());
        assertEquals(1, status, out.toString(StandardCharsets.UTF_8));
        assertTrue(err.toString(StandardCharsets.UTF_8).contains("self-test: cannot run"), err.toString());
    }
}
