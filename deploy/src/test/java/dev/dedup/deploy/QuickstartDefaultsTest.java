package dev.dedup.deploy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * What the quickstart runs when a user sets nothing, which no test can run (the tests build their images from
 * Debian packages): compose.yaml's default images are the Dockerfile's and the ones its README names, and it
 * ships no token.
 */
class QuickstartDefaultsTest {

    static final String COMPOSE = Tools.read(Tools.DEPLOY.resolve("quickstart/compose.yaml"));
    static final String README = Tools.read(Tools.DEPLOY.resolve("quickstart/README.md"));
    static final String DOCKERFILE = Tools.read(Tools.DEPLOY.resolve("Dockerfile"));

    @Test
    void composeBuildsOnTheDockerfilesDefaultImages_asTheReadmeSays() {
        for (String arg : new String[] {"BUILD_IMAGE", "BASE_IMAGE"}) {
            String dockerfile = find("(?m)^ARG " + arg + "=(\\S+)$", DOCKERFILE, "deploy/Dockerfile: ARG " + arg);
            String compose = find("\\$\\{" + arg + ":-([^}]+)\\}", COMPOSE, "compose.yaml: ${" + arg + ":-...}");
            assertEquals(dockerfile, compose, "compose.yaml's default " + arg);
            assertTrue(
                    README.contains("`" + arg + "` (`" + dockerfile + "`"),
                    "deploy/quickstart/README.md names " + arg + "'s default " + dockerfile);
        }
    }

    @Test
    void noTokenShips_theAgentAndTheWorkerReadTheOneMadeAtTheFirstStart() {
        assertFalse(COMPOSE.contains("DEDUP_TOKEN:"), "compose.yaml sets DEDUP_TOKEN: a token in the file ships");
        assertTrue(COMPOSE.contains("secrets.token_hex("), "compose.yaml's token service makes a random token");
        assertEquals(
                2,
                Pattern.compile("DEDUP_TOKEN_FILE: /run/dedup/token")
                        .matcher(COMPOSE)
                        .results()
                        .count(),
                "the agent and the worker read the token file");
        assertTrue(README.contains("docker compose exec -T agent cat /run/dedup/token"), "the README's token");
    }

    private static String find(String regex, String text, String what) {
        Matcher m = Pattern.compile(regex).matcher(text);
        assertTrue(m.find(), "no " + what);
        return m.group(1);
    }
}
