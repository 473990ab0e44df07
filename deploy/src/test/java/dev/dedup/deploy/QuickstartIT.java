package dev.dedup.deploy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * deploy/quickstart as its README runs it: {@code docker-compose up --build} builds the agent's image from the
 * sources (Maven in the Dockerfile's build stage, the one test that runs it) and starts Redis, the agent and the
 * Python worker, whose claims are answered {@code new}, {@code retry} and {@code duplicate} as it tells; it exits
 * 0, and the agent answers the README's curl on the published port with the token the README reads from the
 * agent's container, one made at the start. The images a user's Docker would pull are made from Debian packages
 * here (no registry is reachable), the same ones the other image tests use; Maven's downloads stay in the engine's
 * layer cache between runs, until a POM changes.
 */
class QuickstartIT {

    static final Path QUICKSTART = Tools.DEPLOY.resolve("quickstart");

    @Test
    void composeUp_workerSeesNewRetryAndDuplicate_exitsZero_andTheAgentAnswersTheReadmesCurl() throws Exception {
        new Docker(); // fails with what to do when no engine answers
        Tools.require("docker-compose", "docker-compose");
        Map<String, String> env = new HashMap<>(Map.of(
                "BUILD_IMAGE", Docker.mavenImage(),
                "BASE_IMAGE", Docker.baseImage(),
                "REDIS_IMAGE", Docker.redisImage(),
                "PYTHON_IMAGE", Docker.pythonImage()));
        String project = "dedup-qs-" + UUID.randomUUID().toString().substring(0, 8);
        try {
            // the from-source build first, on its own: the port is taken just before the start, not a build earlier
            long t0 = System.nanoTime();
            compose(env, project, Duration.ofMinutes(10), "build").ok("docker-compose build");
            System.out.printf(
                    "QuickstartIT: the agent's image built from the sources in %d s%n",
                    (System.nanoTime() - t0) / 1_000_000_000L);
            int port = freeLoopbackPort();
            env.put("AGENT_PORT", String.valueOf(port));
            compose(env, project, Duration.ofMinutes(5), "up", "--build", "--detach")
                    .ok("docker-compose up --build");
            // the container's id is ps's last line: docker-compose may warn on the lines before it
            String[] ps = compose(env, project, Duration.ofSeconds(30), "ps", "-q", "worker")
                    .ok("docker-compose ps")
                    .output()
                    .strip()
                    .split("\n");
            String worker = ps[ps.length - 1].strip();
            String exit = Docker.ok(Duration.ofMinutes(3), "wait", worker);
            String output = Docker.logs(worker);
            String all = compose(env, project, Duration.ofSeconds(60), "logs", "--no-color")
                    .output();
            assertEquals("0", exit, () -> "the worker exited " + exit + ":\n" + all);

            // the worker pads its columns: compare with single spaces
            String lines = output.replaceAll(" +", " ");
            for (String line : List.of(
                    "order-1 at orders:0:0 -> new process it",
                    "order-2 at orders:0:1 -> new process it",
                    "order-3 at orders:0:2 -> new process it",
                    "order-3 at orders:0:2 -> retry process it again",
                    "order-2 at orders:0:3 -> duplicate skip it",
                    "order-4 at orders:0:4 -> new process it")) {
                assertTrue(lines.contains(line), () -> "no \"" + line + "\" in the worker's output:\n" + all);
            }

            // the README's way to the token: read in the agent's container, made at the first start
            String[] exec = compose(
                            env, project, Duration.ofSeconds(30), "exec", "-T", "agent", "cat", "/run/dedup/token")
                    .ok("docker-compose exec -T agent cat /run/dedup/token")
                    .output()
                    .strip()
                    .split("\n");
            String token = exec[exec.length - 1].strip();
            assertTrue(token.matches("[0-9a-f]{64}"), () -> "not a token made at the start: " + token);
            HttpResponse<String> curl = HttpClient.newHttpClient()
                    .send(
                            HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/v1/claims"))
                                    .header("Authorization", "Bearer " + token)
                                    .header("Content-Type", "application/json")
                                    .POST(HttpRequest.BodyPublishers.ofString("{\"ns\": \"try\", \"items\": ["
                                            + "{\"id\": \"m-1\", \"owner\": \"orders:0:7\"},"
                                            + " {\"id\": \"m-1\", \"owner\": \"orders:1:3\"}]}"))
                                    .timeout(Duration.ofSeconds(10))
                                    .build(),
                            HttpResponse.BodyHandlers.ofString());
            assertEquals(200, curl.statusCode(), curl::body);
            assertEquals("{\"verdicts\":[\"new\",\"duplicate\"]}", curl.body().strip());
        } finally {
            // the containers, the network, the volumes (Redis's AOF, the token, the agent's data) and the image built
            compose(env, project, Duration.ofMinutes(2), "down", "--volumes", "--rmi", "local");
        }
    }

    private static Tools.Result compose(Map<String, String> env, String project, Duration timeout, String... args) {
        List<String> cmd = Tools.list("docker-compose", "--project-name", project, "--file", "compose.yaml");
        cmd.addAll(List.of(args));
        return Tools.run(timeout, cmd, QUICKSTART, env);
    }

    private static int freeLoopbackPort() {
        try (ServerSocket s = new ServerSocket()) {
            s.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            return s.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
