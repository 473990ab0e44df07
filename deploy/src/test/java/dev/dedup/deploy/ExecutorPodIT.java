package dev.dedup.deploy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dedup.client.Claims;
import dev.dedup.client.DedupClient;
import dev.dedup.wire.Item;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.Probe;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A Spark executor pod on this machine, as the executor pod template makes it: the agent image started with exactly
 * the arguments and environment the template gives the sidecar (read from the template; its Secret's Redis URI
 * played by the test, pointing at the Redis StatefulSet's container), the kubelet's probes asked on the pod's
 * address, then, in the pod's network namespace, the executor's claim paths given nothing but the environment the
 * template gives the executor container: the Java Spark library's ({@link ExecutorClaimTask}: {@link
 * Claims} at the agent of the environment, as {@code DedupTransform}'s tasks claim) and the Python one's ({@code executor_task.py}:
 * {@code spark_dedup.dedup_partition}, in a python3 container). Their claims answer {@code new}, then {@code retry}.
 * Then the same with a token on the agent: the workers given {@code DEDUP_TOKEN} claim, those without get a 401 that
 * says to give them the token.
 */
class ExecutorPodIT {

    static final String TOKEN = "executor-pod-token-" + UUID.randomUUID();
    static final String NS = "executor";
    static final int CHUNK = 20;
    static final String TEMPLATE = "spark/executor-pod-template.yaml";

    static Docker docker;
    static String image;
    static String python;
    static String redisIp;

    @TempDir
    static Path dir;

    @BeforeAll
    static void startRedis() throws Exception {
        docker = new Docker();
        image = Docker.buildImage("dedup-agent:it");
        python = Docker.pythonImage();
        redisIp = PodSimulationIT.startRedis(docker, dir, docker.network("redis-net"))
                .split(" ")[1];
    }

    @AfterAll
    static void clean() {
        if (docker != null) {
            docker.close();
        }
    }

    /** The template's executor container: what Spark keeps of it, its environment above all. */
    static Container executor() {
        return KubernetesCommandLinesIT.container(
                Manifests.strict(
                        Manifests.file(Tools.KUBERNETES.resolve(TEMPLATE)).get(0)),
                "executor");
    }

    /** The environment the template gives the executor container, as the kubelet resolves it. */
    static Map<String, String> executorEnvironment() {
        Map<String, String> env = new PodContainer(executor(), List.of(), Map.of(), Map.of()).env();
        assertEquals(Map.of("DEDUP_URL", "http://127.0.0.1:7070"), env, "what the template gives the executor");
        return env;
    }

    /**
     * The sidecar as the template runs it, in {@code pod}, with {@code extra} environment on top (a token); waits
     * for the kubelet's startup probe, then asks the readiness and liveness probes.
     */
    static String startAgent(LocalPod pod, String role, Map<String, String> extra) {
        Container sidecar = KubernetesCommandLinesIT.agentContainer("spark");
        PodContainer pc = new PodContainer(
                sidecar,
                Manifests.render("spark"),
                Map.of("dedup-redis/uri", "redis://dedup:" + PodSimulationIT.PASSWORD + "@" + redisIp + ":6379"),
                Map.of());
        Map<String, String> env = new LinkedHashMap<>(pc.env());
        env.putAll(extra);
        String agent = docker.container(role);
        List<String> run = pod.joining(agent, env);
        run.add(1, "-d");
        run.add(image);
        run.addAll(sidecar.getArgs());
        Docker.ok(Duration.ofSeconds(60), run.toArray(String[]::new));

        Probe startup = sidecar.getStartupProbe();
        int probePort = pc.probePort(startup);
        assertEquals(7071, probePort);
        Tools.await(
                Duration.ofSeconds((long) startup.getPeriodSeconds() * startup.getFailureThreshold()),
                role + " startup probe on " + pod.ip + ":" + probePort + ": " + Docker.logs(agent),
                () -> Proc.probe(pod.ip, probePort, startup.getHttpGet().getPath(), 1) == 200);
        for (Probe p : pc.probes()) {
            assertEquals(probePort, pc.probePort(p));
            int timeout = p.getTimeoutSeconds() == null ? 1 : p.getTimeoutSeconds();
            assertEquals(200, Proc.probe(pod.ip, probePort, p.getHttpGet().getPath(), timeout), p.toString());
        }
        assertEquals(-1, Proc.probe(pod.ip, 7070, "/health/live", 1), "the claim API is on the pod's loopback");
        return agent;
    }

    /** The Java claim path in the pod, with {@code env}; its output once it exits, and its exit code. */
    static String[] javaTask(LocalPod pod, String role, Map<String, String> env, String ids) {
        String name = docker.container(role);
        List<String> run = pod.joining(name, env);
        List<String> mounts = LocalPod.classpathMounts(List.of(ExecutorClaimTask.class, DedupClient.class, Item.class));
        run.addAll(mounts.subList(0, mounts.size() - 1));
        run.addAll(List.of(
                "--entrypoint",
                "java",
                image,
                "-XX:-UsePerfData",
                "-cp",
                mounts.get(mounts.size() - 1),
                ExecutorClaimTask.class.getName(),
                NS,
                ids,
                String.valueOf(CHUNK)));
        return exited(name, run);
    }

    /** The Python claim path in the pod, with {@code env}, as Spark's image runs it: user 185. */
    static String[] pythonTask(LocalPod pod, String role, Map<String, String> env, String ids) {
        String name = docker.container(role);
        List<String> run = pod.joining(name, env);
        Path python = Tools.ROOT.resolve("shared/python");
        run.addAll(List.of(
                "--user",
                "185:185",
                "-v",
                python.resolve("src") + ":/worker/src:ro",
                "-v",
                python.resolve("examples") + ":/worker/examples:ro",
                "-v",
                Tools.DEPLOY.resolve("src/test/python/executor_task.py") + ":/worker/executor_task.py:ro",
                ExecutorPodIT.python,
                "python3",
                "-B",
                "/worker/executor_task.py",
                NS,
                ids,
                String.valueOf(CHUNK)));
        return exited(name, run);
    }

    private static String[] exited(String name, List<String> run) {
        run.add(1, "-d");
        Docker.ok(Duration.ofSeconds(60), run.toArray(String[]::new));
        String exit = Docker.ok(Duration.ofMinutes(2), "wait", name);
        return new String[] {exit, Docker.logs(name)};
    }

    static void assertNewThenRetry(String what, String[] task) {
        assertEquals("0", task[0], what + ": " + task[1]);
        assertTrue(
                task[1].contains("FIRST new=" + CHUNK + " retry=0 duplicate=0\n" + "AGAIN new=0 retry=" + CHUNK
                        + " duplicate=0\n"),
                what + ": " + task[1]);
    }

    static void assertRejectedWithoutToken(String what, String[] task) {
        assertEquals("3", task[0], what + ": " + task[1]);
        assertTrue(task[1].contains("REJECTED 401 unauthorized: missing or wrong bearer token"), what + ": " + task[1]);
        assertTrue(
                task[1].contains("this client sent no token: give it the agent's --token (DEDUP_TOKEN)"),
                what + ": " + task[1]);
    }

    @Test
    void theTemplateAsWritten_probesOnTheOpsPort_javaAndPythonClaimWithTheExecutorsEnvironmentAlone() throws Exception {
        LocalPod pod = LocalPod.start(docker, image, "plain", docker.networkName("redis-net"));
        String agent = startAgent(pod, "plain-agent", Map.of());
        Map<String, String> executor = executorEnvironment();

        assertNewThenRetry("java", javaTask(pod, "plain-java", executor, "java-" + UUID.randomUUID()));
        assertNewThenRetry("python", pythonTask(pod, "plain-python", executor, "python-" + UUID.randomUUID()));

        // Prometheus scrapes the ops port from the pod network, as the annotation and the PodMonitor say
        assertEquals(200, Proc.get("http://" + pod.ip + ":7071/metrics", null).statusCode());
        assertEquals(404, Proc.get("http://" + pod.ip + ":7071/v1/claims", null).statusCode());
        assertTrue(
                Docker.logs(agent)
                        .contains("listening on http://127.0.0.1:7070, operations also on http://0.0.0.0:7071"),
                Docker.logs(agent));
    }

    @Test
    void withATokenOnTheAgent_workersGivenDedupTokenClaim_andWorkersWithoutGetA401ThatSaysSo() throws Exception {
        LocalPod pod = LocalPod.start(docker, image, "token", docker.networkName("redis-net"));
        startAgent(pod, "token-agent", Map.of("DEDUP_TOKEN", TOKEN)); // the probes still need none
        Map<String, String> executor = new LinkedHashMap<>(executorEnvironment());
        executor.put("DEDUP_TOKEN", TOKEN);

        assertNewThenRetry("java", javaTask(pod, "token-java", executor, "java-" + UUID.randomUUID()));
        assertNewThenRetry("python", pythonTask(pod, "token-python", executor, "python-" + UUID.randomUUID()));

        Map<String, String> without = executorEnvironment();
        assertRejectedWithoutToken("java", javaTask(pod, "notoken-java", without, "java-" + UUID.randomUUID()));
        assertRejectedWithoutToken("python", pythonTask(pod, "notoken-python", without, "python-" + UUID.randomUUID()));

        assertEquals(401, Proc.get("http://" + pod.ip + ":7071/metrics", null).statusCode());
        assertEquals(200, Proc.get("http://" + pod.ip + ":7071/metrics", TOKEN).statusCode());
        assertEquals(401, Proc.get("http://" + pod.ip + ":7071/v1/stats", null).statusCode());
    }
}
