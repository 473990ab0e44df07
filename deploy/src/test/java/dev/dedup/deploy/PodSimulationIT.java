package dev.dedup.deploy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.dedup.client.DedupClient;
import dev.dedup.wire.Item;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A pod made of containers, as the kubelet makes one: a pause container holds the network namespace, the
 * agent (the consumer Deployment's sidecar: its arguments and environment) and a worker ({@link PodWorker}, with
 * the consumer container's environment) join it ({@code --network container:}) and talk over 127.0.0.1. Redis is the StatefulSet's redis
 * container (its command, environment and user, read-only) on another Docker network, which the pod is
 * connected to. In the middle of the worker's stream the agent is killed ({@code SIGKILL}) and started
 * again in the same namespace, as the kubelet restarts a sidecar: meanwhile the worker's calls are refused;
 * later Redis is frozen ({@code docker pause}) for a few seconds: meanwhile the worker's batches get 503.
 * The worker skips nothing without a verdict; afterwards every verdict is right and nothing claimed before
 * is lost.
 */
class PodSimulationIT {

    static final String PASSWORD = KubernetesCommandLinesIT.hex();
    static Docker docker;
    static String image;

    @TempDir
    static Path dir;

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

    /** The StatefulSet's redis container on its own network; returns its name and its address there. */
    static String startRedis(Docker docker, Path dir, String network) throws Exception {
        List<JsonNode> rendered = Manifests.render("redis");
        StatefulSet set = rendered.stream()
                .map(Manifests::strict)
                .filter(StatefulSet.class::isInstance)
                .map(StatefulSet.class::cast)
                .findFirst()
                .orElseThrow();
        Path conf = Files.createDirectories(dir.resolve("redis-configmap"));
        for (JsonNode doc : rendered) {
            if (Manifests.strict(doc) instanceof ConfigMap cm) {
                for (var e : cm.getData().entrySet()) {
                    Files.writeString(conf.resolve(e.getKey()), e.getValue());
                }
            }
        }
        var spec = set.getSpec().getTemplate().getSpec();
        var container = KubernetesCommandLinesIT.container(set, "redis");
        PodContainer pc = new PodContainer(
                container,
                rendered,
                KubernetesCommandLinesIT.secrets("unused").entrySet().stream()
                        .collect(java.util.stream.Collectors.toMap(
                                java.util.Map.Entry::getKey,
                                e -> e.getKey().equals("dedup-redis-tier/agent-password") ? PASSWORD : e.getValue())),
                java.util.Map.of("metadata.name", "dedup-redis-0"));
        String name = docker.container("redis-0");
        String user = spec.getSecurityContext().getRunAsUser() + ":"
                + spec.getSecurityContext().getRunAsGroup();
        List<String> run = Tools.list(
                "run",
                "-d",
                "--name",
                name,
                "--network",
                network,
                "--network-alias",
                "dedup-redis-0.dedup-redis",
                "--user",
                user,
                "--read-only",
                "--cap-drop",
                "ALL",
                "--security-opt",
                "no-new-privileges",
                "-v",
                conf + ":/etc/dedup-redis:ro",
                "--tmpfs",
                "/run/dedup-redis:uid=999,gid=999,mode=0700",
                "--tmpfs",
                "/data:uid=999,gid=999,mode=0700");
        pc.env().forEach((k, v) -> {
            run.add("-e");
            run.add(k + "=" + v);
        });
        run.add("--entrypoint");
        run.add(pc.commandLine(List.of()).get(0));
        run.add(Docker.redisImage());
        run.addAll(
                pc.commandLine(List.of()).subList(1, pc.commandLine(List.of()).size()));
        Docker.ok(Duration.ofSeconds(60), run.toArray(String[]::new));
        String ip = Docker.inspect(name, "{{(index .NetworkSettings.Networks \"" + network + "\").IPAddress}}");
        Tools.await(
                Duration.ofSeconds(60),
                "redis up: " + Docker.logs(name),
                () -> Docker.logs(name).contains("Ready to accept connections"));
        assertTrue(Docker.logs(name).contains("start-redis: primary"), Docker.logs(name));
        return name + " " + ip;
    }

    @Test
    void agentKilledAndRestarted_thenRedisFrozen_workerWaitsAndLosesNothing() throws Exception {
        String[] redis = startRedis(docker, dir, docker.network("redis-net")).split(" ");
        String redisName = redis[0];
        String redisIp = redis[1];

        // the pod reaches Redis as a pod reaches a Service: through the cluster's network
        LocalPod thePod = LocalPod.start(docker, image, "pod", docker.networkName("redis-net"));
        String pod = "container:" + thePod.pause;
        String podIp = thePod.ip;

        // the consumer Deployment's sidecar, its Secret played by the test
        var sidecar = KubernetesCommandLinesIT.agentContainer("consumer");
        PodContainer pc = new PodContainer(
                sidecar,
                Manifests.render("consumer"),
                java.util.Map.of("dedup-redis/uri", "redis://dedup:" + PASSWORD + "@" + redisIp + ":6379"),
                java.util.Map.of());
        String agent = docker.container("pod-agent");
        List<String> runAgent = Tools.list(
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
                "no-new-privileges");
        pc.env().forEach((k, v) -> {
            runAgent.add("-e");
            runAgent.add(k + "=" + v);
        });
        runAgent.add(image);
        runAgent.addAll(sidecar.getArgs());
        Docker.ok(Duration.ofSeconds(60), runAgent.toArray(String[]::new));
        // what the kubelet's startup probe does, on the pod's address and the probe's port (the ops port)
        int probePort = pc.probePort(sidecar.getStartupProbe());
        Tools.await(
                Duration.ofSeconds(60),
                "agent ready: " + Docker.logs(agent),
                () -> Proc.probe(
                                podIp,
                                probePort,
                                sidecar.getStartupProbe().getHttpGet().getPath(),
                                1)
                        == 200);
        assertEquals(-1, Proc.probe(podIp, 7070, "/health/live", 1), "the claim port is the pod's own: loopback");

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
        // the consumer container's environment: DEDUP_URL
        KubernetesCommandLinesIT.workerEnvironment("consumer", 7070).forEach((k, v) -> {
            run.add("-e");
            run.add(k + "=" + v);
        });
        run.addAll(List.of(
                "--entrypoint",
                "java",
                image,
                "-XX:-UsePerfData",
                "-cp",
                String.join(":", cp),
                PodWorker.class.getName(),
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
                () -> Docker.logs(worker).contains(": no answer "));
        Thread.sleep(1_000);
        Docker.ok(Duration.ofSeconds(60), "start", agent);

        Tools.await(
                Duration.ofSeconds(120),
                "worker past batch 80: " + Docker.logs(worker),
                () -> Docker.logs(worker).contains("BATCH 80 "));
        Docker.ok(Duration.ofSeconds(30), "pause", redisName);
        Tools.await(
                Duration.ofSeconds(60),
                "worker gets 503: " + Docker.logs(worker),
                () -> Docker.logs(worker).contains(": 503 "));
        Thread.sleep(2_000);
        Docker.ok(Duration.ofSeconds(30), "unpause", redisName);

        String exit = Docker.ok(Duration.ofMinutes(3), "wait", worker);
        String log = Docker.logs(worker);
        assertEquals("0", exit, log);
        Matcher done = Pattern.compile(
                        "DONE processed (\\d+) skipped (\\d+) wrong (\\d+) lost (\\d+) unavailable (\\d+)"
                                + " refused (\\d+) answered503 (\\d+)")
                .matcher(log);
        assertTrue(done.find(), log);
        System.out.println("PodSimulationIT worker: " + done.group());
        assertEquals(150 * 200, Integer.parseInt(done.group(1)), log);
        assertEquals(150 * 20, Integer.parseInt(done.group(2)), log);
        assertEquals(0, Integer.parseInt(done.group(3)), log);
        assertEquals(0, Integer.parseInt(done.group(4)), log);
        assertTrue(Integer.parseInt(done.group(6)) > 0, "no call refused while the agent was down: " + log);
        assertTrue(Integer.parseInt(done.group(7)) > 0, "no 503 while Redis was frozen: " + log);
        // the agent came back by itself in the same network namespace
        assertEquals("true", Docker.inspect(agent, "{{.State.Running}}"));
        assertTrue(
                Docker.logs(agent)
                        .contains("listening on http://127.0.0.1:7070, operations also on http://0.0.0.0:7071"),
                Docker.logs(agent));
    }
}
