package dev.dedup.deploy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dedup.client.DedupClient;
import dev.dedup.wire.Item;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A pod made of containers, as the kubelet makes one: a pause container holds the network namespace, the
 * agent and a worker ({@link PodWorker}) join it ({@code --network container:}) and talk over 127.0.0.1.
 * The agent is killed ({@code SIGKILL}) in the middle of the worker's stream and started again in the same
 * namespace, as the kubelet restarts a sidecar: meanwhile the worker gets no verdict (its calls are refused)
 * and skips nothing; afterwards every verdict is right and nothing claimed before the kill is lost.
 */
class PodSimulationIT {

    static final String TOKEN = "pod-simulation-token-0123";
    static Docker docker;
    static String image;

    @BeforeAll
    static void build() {
        docker = new Docker();
        image = Docker.buildImage("dedup-agent:it");
    }

    @AfterAll
    static void clean() {
        if (docker != null) {
            docker.close();
        }
    }

    @Test
    void agentKilledAndRestartedInThePod_workerWaitsAndLosesNothing() throws Exception {
        String pause = docker.container("pod-pause");
        Docker.ok(
                Duration.ofSeconds(60),
                "run",
                "-d",
                "--name",
                pause,
                "--read-only",
                "--cap-drop",
                "ALL",
                "--entrypoint",
                "sleep",
                image,
                "infinity");
        String pod = "container:" + pause;
        String podIp = Docker.ip(pause);

        String agent = docker.container("pod-agent");
        Docker.ok(
                Duration.ofSeconds(60),
                "run",
                "-d",
                "--name",
                agent,
                "--network",
                pod,
                "--read-only",
                "--cap-drop",
                "ALL",
                "--security-opt",
                "no-new-privileges",
                "-v",
                docker.volume("pod-data") + ":/var/lib/dedup",
                "-e",
                "DEDUP_TOKEN=" + TOKEN,
                image,
                "--host",
                "0.0.0.0",
                "--port",
                "7070",
                "--embedded-slots",
                "1048576");
        // what the kubelet's startup probe does, on the pod's address
        String probe = "http://" + podIp + ":7070";
        Tools.await(Duration.ofSeconds(60), "agent live: " + Docker.logs(agent), () -> ImageIT.status(probe) == 200);

        List<String> cp = new ArrayList<>();
        List<String> mounts = new ArrayList<>();
        for (Class<?> c : List.of(PodWorker.class, DedupClient.class, Item.class)) {
            Path where = Path.of(
                    c.getProtectionDomain().getCodeSource().getLocation().toURI());
            String inside = "/worker/" + cp.size() + (where.toString().endsWith(".jar") ? "/classes.jar" : "");
            mounts.add("-v");
            mounts.add(where + ":" + inside + ":ro");
            cp.add(inside);
        }
        String worker = docker.container("pod-worker");
        List<String> run = Tools.list(
                "run",
                "-d",
                "--name",
                worker,
                "--network",
                pod,
                "--read-only",
                "--cap-drop",
                "ALL",
                "--security-opt",
                "no-new-privileges");
        run.addAll(mounts);
        run.addAll(List.of(
                "--entrypoint",
                "java",
                image,
                "-XX:-UsePerfData",
                "-cp",
                String.join(":", cp),
                PodWorker.class.getName(),
                "http://127.0.0.1:7070",
                TOKEN,
                "150",
                "200"));
        Docker.ok(Duration.ofSeconds(60), run.toArray(String[]::new));

        Tools.await(
                Duration.ofSeconds(120),
                "worker past batch 30: " + Docker.logs(worker),
                () -> Docker.logs(worker).contains("BATCH 30 "));
        Docker.ok(Duration.ofSeconds(30), "kill", "--signal", "KILL", agent);
        Tools.await(
                Duration.ofSeconds(60),
                "worker sees the agent gone: " + Docker.logs(worker),
                () -> Docker.logs(worker).contains("UNAVAILABLE"));
        Thread.sleep(1_000);
        Docker.ok(Duration.ofSeconds(60), "start", agent);

        String exit = Docker.ok(Duration.ofMinutes(3), "wait", worker);
        String log = Docker.logs(worker);
        assertEquals("0", exit, log);
        Matcher done = Pattern.compile(
                        "DONE processed (\\d+) skipped (\\d+) wrong (\\d+) lost (\\d+) unavailable (\\d+)")
                .matcher(log);
        assertTrue(done.find(), log);
        assertEquals(150 * 200, Integer.parseInt(done.group(1)), log);
        assertEquals(150 * 20, Integer.parseInt(done.group(2)), log);
        assertEquals(0, Integer.parseInt(done.group(3)), log);
        assertEquals(0, Integer.parseInt(done.group(4)), log);
        assertTrue(Integer.parseInt(done.group(5)) > 0, "the worker never went without an answer: " + log);
        // the agent came back by itself in the same network namespace, with its claims
        assertEquals("true", Docker.inspect(agent, "{{.State.Running}}"));
        assertTrue(Docker.logs(agent).contains("listening on http://0.0.0.0:7070"), Docker.logs(agent));
    }
}
