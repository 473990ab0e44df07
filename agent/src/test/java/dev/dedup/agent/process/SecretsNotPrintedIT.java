package dev.dedup.agent.process;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dedup.agent.testing.AgentProcess;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The real jar refuses Redis URIs that are malformed, misplaced or unreachable without printing their password:
 * its configuration errors, its start failures and the URI parser's messages they quote.
 */
class SecretsNotPrintedIT {

    private static final String SECRET = "S3cretPW";

    @TempDir
    Path work;

    static List<List<String>> refusedStarts() {
        String uri = "redis://dedup:" + SECRET + "@127.0.0.1:1";
        return List.of(
                List.of("--redis", "dedup:" + SECRET + "@127.0.0.1:1"), // no scheme
                List.of("--redis", "redis://dedup:" + SECRET + "@ho^st:1"), // the parser quotes it
                List.of("--redis", "redis://dedup:" + SECRET + "@[::1:1"),
                List.of("--redis", "redis://dedup:" + SECRET + "@127.0.0.1:1/x?y=%zz"),
                List.of("--redis", "redis-cluster://dedup:" + SECRET + "@ho^st:1"),
                List.of("--redis", uri, "--redis-timeout", "500ms"), // nothing listens there
                List.of("--redis-previous", uri, "--redis-cutover", "1767225600"), // no --redis
                List.of("--redis", uri, "--redis-previous", uri, "--redis-cutover", "1767225600"), // the same list
                List.of(
                        "--redis",
                        "redis-cluster://dedup:" + SECRET + "@127.0.0.1:1",
                        "--redis-previous",
                        uri,
                        "--redis-cutover",
                        "1767225600"));
    }

    @ParameterizedTest
    @MethodSource("refusedStarts")
    void aRefusedStart_namesTheUri_withoutItsPassword(List<String> args) throws Exception {
        List<String> all = new java.util.ArrayList<>(List.of("--port", "0"));
        all.addAll(args);
        try (AgentProcess agent = AgentProcess.launch(work, all.toArray(String[]::new))) {
            int exit = agent.awaitExit(Duration.ofSeconds(60));
            String output = agent.output();
            assertTrue(exit != 0, "the start is refused: " + output);
            assertFalse(output.contains(SECRET), output);
            assertTrue(output.contains("redis"), "says which setting: " + output);
        }
    }
}
