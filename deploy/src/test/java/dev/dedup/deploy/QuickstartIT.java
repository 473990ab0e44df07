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
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * deploy/quickstart as its README runs it: {@code docker-compose up --build} builds the agent's image from the
 * repository and starts Redis, the agent and the Python worker, whose claims are answered {@code new}, {@code
 * retry} and {@code duplicate} as it tells; it exits 0, and the agent answers the README's curl on the published
 * port. The images a user's Docker would pull are made from Debian packages here (no registry is reachable),
 * the same ones the other image tests use.
 */
class QuickstartIT {

    static final Path QUICKSTART = Tools.DEPLOY.resolve("quickstart");
    /** compose.yaml's default token: the README's curl sends it. */
    static final String TOKEN = "quickstart-token-change-me";

    @Test
    void composeUp_workerSeesNewRetryAndDuplicate_exitsZero_andTheAgentAnswersTheReadmesCurl() throws Exception {
        new Docker(); // fails with what to do when no engine answers
        Tools.require("docker-compose", "docker-compose");
        Tools.agentJar();
        int port = freeLoopbackPort();
        Map<String, String> env = Map.of(
                "BASE_IMAGE", Docker.baseImage(),
                "REDIS_IMAGE", Docker.redisImage(),
                "PYTHON_IMAGE", Docker.pythonImage(),
                "AGENT_PORT", String.valueOf(port));
        String project = "dedup-qs-" + UUID.randomUUID().toString().substring(0, 8);
        try {
            compose(env, project, Duration.ofMinutes(6), "up", "--build", "--detach")
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

            HttpResponse<String> curl = HttpClient.newHttpClient()
                    .send(
                            HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/v1/claims"))
                                    .header("Authorization", "Bearer " + TOKEN)
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
            // the containers, the network, the volumes (Redis's AOF, the agent's data) and the image built
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
