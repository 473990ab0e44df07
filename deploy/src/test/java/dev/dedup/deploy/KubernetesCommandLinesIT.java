package dev.dedup.deploy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.dedup.agent.testing.AgentProcess;
import dev.dedup.agent.testing.RedisAcl;
import dev.dedup.agent.testing.RedisServer;
import dev.dedup.client.DedupClient;
import dev.dedup.client.DedupException;
import dev.dedup.wire.Item;
import dev.dedup.wire.Verdict;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.Probe;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The manifests' command lines, run for real on this machine. First the first pod of the Redis StatefulSet:
 * its redis and sentinel containers' commands (the start scripts of the ConfigMap, redis.conf, the ACL made
 * from the Secret), with this machine's ports and directories in place of the pod's. Then every agent
 * container (Spark executor sidecar, consumer sidecar, the embedded-store consumer, the node agent): the
 * image's entrypoint with the built jar, the container's arguments and environment as the kubelet resolves
 * them, the Redis URI of the Secret pointing at that Sentinel; its probes are asked on the ops port as the
 * kubelet asks them, a worker claims with what its manifest gives it (DEDUP_URL; DEDUP_TOKEN for the node
 * agent's), and SIGTERM ends it with exit code 0 within the pod's grace.
 */
class KubernetesCommandLinesIT {

    static final String TOKEN = "k8s-it-" + UUID.randomUUID().toString().replace("-", "");
    static final String READ_TOKEN =
            "k8s-it-read-" + UUID.randomUUID().toString().replace("-", "");
    static final String PASSWORD = hex();
    static final String REPLICATION_PASSWORD = hex();
    static final String SENTINEL_PASSWORD = hex();
    static final String ADMIN_PASSWORD = hex();

    @TempDir
    static Path dir;

    static Proc redis;
    static Proc sentinel;
    static int redisPort;
    static int sentinelPort;

    static String hex() {
        return UUID.randomUUID().toString().replace("-", "")
                + UUID.randomUUID().toString().replace("-", "");
    }

    /**
     * "secretName/key" to value: the agents' Secret dedup-redis (the URI alone, its password the agents' user's) and
     * the tier's dedup-redis-tier (every password the Redis pods need).
     */
    static Map<String, String> secrets(String redisUri) {
        return Map.of(
                "dedup-agent/token", TOKEN,
                "dedup-agent/read-token", READ_TOKEN,
                "dedup-redis/uri", redisUri,
                "dedup-redis-tier/agent-password", PASSWORD,
                "dedup-redis-tier/replication-password", REPLICATION_PASSWORD,
                "dedup-redis-tier/sentinel-password", SENTINEL_PASSWORD,
                "dedup-redis-tier/admin-password", ADMIN_PASSWORD);
    }

    /** The agents' Redis URI in the Secret: the in-cluster Sentinel names replaced by this machine's. */
    static String sentinelUri() {
        return "redis-sentinel://dedup:" + PASSWORD + "@127.0.0.1:" + sentinelPort + "#dedup";
    }

    @BeforeAll
    static void startTheFirstRedisPod() throws Exception {
        Tools.require("redis-server", "redis-server");
        Tools.require("redis-cli", "redis-tools");
        List<JsonNode> rendered = Manifests.render("redis");
        StatefulSet set = rendered.stream()
                .map(Manifests::strict)
                .filter(StatefulSet.class::isInstance)
                .map(StatefulSet.class::cast)
                .findFirst()
                .orElseThrow();
        // the ConfigMap as the kubelet mounts it
        Path conf = Files.createDirectories(dir.resolve("redis-0/etc"));
        for (JsonNode doc : rendered) {
            if (Manifests.strict(doc) instanceof ConfigMap cm
                    && cm.getMetadata().getName().startsWith("dedup-redis")) {
                for (var e : cm.getData().entrySet()) {
                    Files.writeString(conf.resolve(e.getKey()), e.getValue());
                }
            }
        }
        redisPort = AgentProcess.freePort();
        sentinelPort = AgentProcess.freePort();
        Path data = Files.createDirectories(dir.resolve("redis-0/data"));
        Path run = Files.createDirectories(dir.resolve("redis-0/run"));
        Map<String, String> secrets = secrets("unused");
        Map<String, String> pod = Map.of("metadata.name", "dedup-redis-0");
        PodContainer redisContainer = local(container(set, "redis"), rendered, secrets, pod, conf, data)
                .override("RUN_DIR", run.toString());
        redis = Proc.start(
                redisContainer.commandLine(List.of()), redisContainer.env(), dir.resolve("redis-0"), "redis");
        Tools.await(
                Duration.ofSeconds(30), "redis from start-redis.sh: " + redis.output(), () -> Resp.answers(redisPort));
        PodContainer sentinelContainer = local(container(set, "sentinel"), rendered, secrets, pod, conf, data);
        sentinel = Proc.start(
                sentinelContainer.commandLine(List.of()), sentinelContainer.env(), dir.resolve("redis-0"), "sentinel");
        Tools.await(
                Duration.ofSeconds(30),
                "sentinel from start-sentinel.sh: " + sentinel.output(),
                () -> Resp.answers(sentinelPort));
    }

    /** The pod's names, ports and directories replaced by this machine's; loopback only. */
    static PodContainer local(
            Container c,
            List<JsonNode> rendered,
            Map<String, String> secrets,
            Map<String, String> pod,
            Path conf,
            Path data) {
        return new PodContainer(c, rendered, secrets, pod)
                .replace("/etc/dedup-redis", conf.toString())
                .override("ANNOUNCE_HOST", "127.0.0.1")
                .override("BOOTSTRAP_PRIMARY", "127.0.0.1:" + redisPort)
                .override("SENTINELS", "127.0.0.1:" + sentinelPort)
                .override("REDIS_PORT", String.valueOf(redisPort))
                .override("SENTINEL_PORT", String.valueOf(sentinelPort))
                .override("CONF_DIR", conf.toString())
                .override("DATA_DIR", data.toString())
                .override("REDIS_BIND", "127.0.0.1")
                .override("SENTINEL_BIND", "127.0.0.1");
    }

    @AfterAll
    static void stopRedis() {
        if (sentinel != null) {
            sentinel.close();
        }
        if (redis != null) {
            redis.close();
        }
    }

    static Container container(HasMetadata workload, String name) {
        PodSpec spec = ManifestsIT.podSpec(workload);
        List<Container> all = new ArrayList<>(spec.getInitContainers());
        all.addAll(spec.getContainers());
        return all.stream()
                .filter(c -> c.getName().equals(name))
                .findFirst()
                .orElseThrow(() -> new AssertionError("no container " + name));
    }

    @Test
    void redisPodStartsAsPrimary_withTheAclOfTheSecret_watchedByItsSentinel() throws Exception {
        try (Resp anonymous = new Resp(redisPort)) {
            assertTrue(anonymous.text("GET", "ddx").startsWith("-NOAUTH"), "the default user is off");
        }
        try (Resp r = new Resp(redisPort)) {
            assertEquals("OK", r.text("AUTH", "dedup", PASSWORD));
            assertEquals("[maxmemory-policy, noeviction]", r.text("CONFIG", "GET", "maxmemory-policy"));
            assertEquals("[appendonly, yes]", r.text("CONFIG", "GET", "appendonly"));
            assertEquals("[appendfsync, everysec]", r.text("CONFIG", "GET", "appendfsync"));
            // 70 % of the container's 8Gi limit
            assertEquals("[maxmemory, " + (8L << 30) * 7 / 10 + "]", r.text("CONFIG", "GET", "maxmemory"));
            // the agent's user: its keys and channel, and only the commands the agent sends
            assertEquals("OK", r.text("SET", "dd:probe", "1"));
            assertTrue(r.text("SET", "other", "1").startsWith("-NOPERM"));
            assertTrue(r.text("FLUSHALL").startsWith("-NOPERM"));
            assertTrue(r.text("KEYS", "*").startsWith("-NOPERM"));
            assertTrue(r.text("SCAN", "0").startsWith("-NOPERM"));
            assertTrue(r.text("SCRIPT", "FLUSH").startsWith("-NOPERM"));
            assertTrue(r.text("FUNCTION", "FLUSH").startsWith("-NOPERM"));
            assertTrue(r.text("FUNCTION", "LIST").startsWith("-NOPERM"));
            assertTrue(r.text("OBJECT", "ENCODING", "dd:probe").startsWith("-NOPERM"));
            assertTrue(r.text("CONFIG", "SET", "appendonly", "no").startsWith("-NOPERM"));
            assertTrue(r.text("PUBLISH", "other", "x").startsWith("-NOPERM"));
            assertEquals("1", r.text("DEL", "dd:probe"));
            assertTrue(r.text("ROLE").startsWith("-NOPERM"));
            // but INFO, where the agent reads the shard's memory and eviction policy
            assertTrue(r.text("INFO", "memory").contains("maxmemory_policy:noeviction"), r.text("INFO", "memory"));
        }
        try (Resp r = new Resp(redisPort)) {
            assertEquals("OK", r.text("AUTH", "sentinel", SENTINEL_PASSWORD));
            assertTrue(r.text("ROLE").startsWith("[master"), "the sentinel's user sees a primary: " + r.text("ROLE"));
            assertTrue(r.text("GET", "dd:x").startsWith("-NOPERM"), "and reads no claim");
        }
        assertTrue(Files.isDirectory(dir.resolve("redis-0/data/appendonlydir")), "AOF on the volume");
        try (Resp anonymous = new Resp(sentinelPort)) {
            assertTrue(
                    anonymous
                            .text("SENTINEL", "get-master-addr-by-name", "dedup")
                            .startsWith("-NOAUTH"),
                    "the sentinel's default user is off");
        }
        try (Resp agent = new Resp(sentinelPort)) {
            assertEquals("OK", agent.text("AUTH", "dedup", PASSWORD));
            assertEquals("[127.0.0.1, " + redisPort + "]", agent.text("SENTINEL", "get-master-addr-by-name", "dedup"));
            assertTrue(agent.text("SENTINEL", "master", "dedup").startsWith("[name, dedup"), "the agents' question");
            // but the agents' user changes nothing the sentinel watches
            assertTrue(agent.text("SENTINEL", "set", "dedup", "quorum", "1").startsWith("-NOPERM"));
            assertTrue(agent.text("SENTINEL", "remove", "dedup").startsWith("-NOPERM"));
            assertTrue(agent.text("SENTINEL", "monitor", "evil", "127.0.0.1", "1", "1")
                    .startsWith("-NOPERM"));
            assertTrue(agent.text("SENTINEL", "failover", "dedup").startsWith("-NOPERM"));
            assertTrue(agent.text("SENTINEL", "config", "get", "*").startsWith("-NOPERM"));
        }
        try (Resp s = new Resp(sentinelPort)) {
            assertEquals("OK", s.text("AUTH", "admin", ADMIN_PASSWORD));
            assertEquals("[127.0.0.1, " + redisPort + "]", s.text("SENTINEL", "get-master-addr-by-name", "dedup"));
            // the sentinel logs in as its ACL user: the primary is seen, not down
            Tools.await(Duration.ofSeconds(20), "sentinel sees the primary", () -> {
                try {
                    List<?> master = (List<?>) s.call("SENTINEL", "master", "dedup");
                    // "master", not "master,disconnected" nor "master,s_down": its PINGs are answered
                    // and INFO, which needs its login, was answered lately
                    long infoRefresh = Long.parseLong((String) master.get(master.indexOf("info-refresh") + 1));
                    return "master".equals(master.get(master.indexOf("flags") + 1)) && infoRefresh < 10_000;
                } catch (IOException e) {
                    return false;
                }
            });
        }
        assertTrue(redis.output().contains("start-redis: primary"), redis.output());
    }

    /**
     * The start scripts, redis.conf and docs/redis.md give the agents' users exactly the rules the agent's own tests
     * run against ({@link RedisAcl}: RedisSentinelAclIT, the ACL contract suites, FingerprintTablesIT), on the servers
     * and on the sentinels, and the sentinels' users theirs.
     */
    @Test
    void theShippedAclRules_areTheOnesTheAgentsTestsRunAgainst() throws IOException {
        String startRedis = Files.readString(Tools.KUBERNETES.resolve("redis/start-redis.sh"));
        String startSentinel = Files.readString(Tools.KUBERNETES.resolve("redis/start-sentinel.sh"));
        String startCluster = Files.readString(Tools.KUBERNETES.resolve("redis-cluster/start-redis-cluster.sh"));
        String conf = Files.readString(Tools.KUBERNETES.resolve("redis-conf/redis.conf"));
        String docs = Files.readString(Tools.ROOT.resolve("docs/redis.md"));
        for (String shipped : List.of(startRedis, startCluster, conf, docs)) {
            assertTrue(shipped.contains(RedisAcl.AGENT), "the agent's rules: " + RedisAcl.AGENT);
        }
        assertTrue(startRedis.contains(RedisAcl.SENTINEL), "the sentinels' user on the servers");
        for (String shipped : List.of(startSentinel, docs)) {
            assertTrue(shipped.contains(RedisAcl.AGENT_ON_SENTINEL), "the agents' user on the sentinels");
            assertTrue(shipped.contains(RedisAcl.SENTINEL_ON_SENTINEL), "the sentinels' user on each other");
        }
        for (String script : List.of(startRedis, startSentinel, startCluster)) {
            assertTrue(script.contains(RedisAcl.CLIENT_SETINFO), "added on servers that have it");
        }
    }

    /**
     * The Redis pod's redis stopped (SIGTERM) and started again on its volume keeps what scripts wrote, as the
     * agent's claims are written: Redis replays them from the AOF as MULTI/EXEC, as the default user, which the
     * start script's ACL leaves off but allowed; without that, the replay drops them.
     */
    @Test
    void redisPodRestarted_keepsWhatScriptsWrote() throws Exception {
        List<JsonNode> rendered = Manifests.render("redis");
        StatefulSet set = ManifestsIT.only(rendered, StatefulSet.class);
        Path pod = dir.resolve("redis-restarted");
        Path data = Files.createDirectories(pod.resolve("data"));
        int port = AgentProcess.freePort();
        PodContainer c = new PodContainer(
                        container(set, "redis"), rendered, secrets("unused"), Map.of("metadata.name", "dedup-redis-0"))
                .replace("/etc/dedup-redis", dir.resolve("redis-0/etc").toString())
                .override("ANNOUNCE_HOST", "127.0.0.1")
                .override("BOOTSTRAP_PRIMARY", "127.0.0.1:" + port)
                .override("SENTINELS", "")
                .override("REDIS_PORT", String.valueOf(port))
                .override("CONF_DIR", dir.resolve("redis-0/etc").toString())
                .override("RUN_DIR", Files.createDirectories(pod.resolve("run")).toString())
                .override("DATA_DIR", data.toString())
                .override("REDIS_BIND", "127.0.0.1");
        try (Proc first = Proc.start(c.commandLine(List.of()), c.env(), pod, "redis-first")) {
            Tools.await(Duration.ofSeconds(30), "redis: " + first.output(), () -> Resp.answers(port));
            try (Resp r = new Resp(port)) {
                assertEquals("OK", r.text("AUTH", "dedup", PASSWORD));
                assertEquals(
                        "1",
                        r.text(
                                "EVAL",
                                "redis.call('hset', KEYS[1], 'f', 'v') redis.call('hincrby', KEYS[1], 'n', 1) return 1",
                                "1",
                                "dd:restarted"));
            }
            assertEquals(0, first.terminate(Duration.ofSeconds(30)), first.output());
        }
        try (Proc again = Proc.start(c.commandLine(List.of()), c.env(), pod, "redis-again")) {
            Tools.await(Duration.ofSeconds(30), "redis again: " + again.output(), () -> Resp.answers(port));
            try (Resp r = new Resp(port)) {
                assertEquals("OK", r.text("AUTH", "dedup", PASSWORD));
                Tools.await(Duration.ofSeconds(10), "AOF loaded", () -> {
                    try {
                        return !r.text("HGET", "dd:restarted", "f").startsWith("-LOADING");
                    } catch (IOException e) {
                        return false;
                    }
                });
                assertEquals("v", r.text("HGET", "dd:restarted", "f"), again.output());
            }
            assertFalse(again.output().contains("NOPERM"), again.output());
        }
    }

    /** The agent container of each workload, and the manifests that hold it. */
    /** The pod spec that holds the workload's agent container. */
    static io.fabric8.kubernetes.api.model.PodSpec podSpec(String workload) {
        if (workload.equals("spark")) {
            return ((io.fabric8.kubernetes.api.model.Pod) Manifests.strict(
                            Manifests.file(Tools.KUBERNETES.resolve("spark/executor-pod-template.yaml"))
                                    .get(0)))
                    .getSpec();
        }
        return Manifests.render(workload).stream()
                .map(Manifests::strict)
                .map(ManifestsIT::podSpec)
                .filter(java.util.Objects::nonNull)
                .findFirst()
                .orElseThrow();
    }

    static Container agentContainer(String workload) {
        if (workload.equals("spark")) {
            return container(
                    Manifests.strict(Manifests.file(Tools.KUBERNETES.resolve("spark/executor-pod-template.yaml"))
                            .get(0)),
                    "dedup-agent");
        }
        return Manifests.render(workload).stream()
                .map(Manifests::strict)
                .filter(o -> ManifestsIT.podSpec(o) != null)
                .map(o -> container(o, "dedup-agent"))
                .findFirst()
                .orElseThrow();
    }

    static long grace(String workload) {
        if (workload.equals("spark")) {
            return 30; // Kubernetes' default; Spark deletes executor pods with it
        }
        return Manifests.render(workload).stream()
                .map(Manifests::strict)
                .map(ManifestsIT::podSpec)
                .filter(s -> s != null)
                .findFirst()
                .orElseThrow()
                .getTerminationGracePeriodSeconds();
    }

    /**
     * Starts the workload's agent container as the kubelet would, with {@code redisUri} in the Secret, on this
     * machine's free {@code port} and {@code opsPort} in place of the manifest's.
     */
    static Proc startAgent(String workload, String redisUri, int port, int opsPort, Path work)
            throws java.io.IOException {
        Container c = agentContainer(workload);
        Path data = work.resolve("var-lib-dedup");
        PodContainer pc = new PodContainer(
                        c, Manifests.render(workload), secrets(redisUri), Map.of("status.podIP", "127.0.0.1"))
                .mountSecrets(podSpec(workload), work.resolve("secrets"))
                .replace("/var/lib/dedup", data.toString())
                .replace("/app/dedup-agent.jar", Tools.agentJar().toString())
                .replace("/app/jvm.options", Tools.DEPLOY.resolve("jvm.options").toString());
        List<String> cmd = pc.commandLine(Image.entrypoint());
        // the image's JVM, with its options; the ahead-of-time cache exists only in the image
        cmd.set(0, Tools.java25().toString());
        assertTrue(cmd.removeIf(arg -> arg.startsWith("-XX:AOTCache=")), "the image's command names its cache: " + cmd);
        int at = cmd.indexOf("--port");
        assertTrue(at > 0, "the container names its port: " + cmd);
        assertEquals("7070", cmd.get(at + 1));
        cmd.set(at + 1, String.valueOf(port));
        int ops = cmd.indexOf("--ops-port");
        assertTrue(ops > 0, "the container names its ops port: " + cmd);
        assertEquals(String.valueOf(pc.probePort(c.getStartupProbe())), cmd.get(ops + 1), "the probes' port");
        cmd.set(ops + 1, String.valueOf(opsPort));
        Map<String, String> env = new java.util.LinkedHashMap<>();
        Image.env().forEach((k, v) -> env.put(k, v.replace("/var/lib/dedup", data.toString())));
        env.putAll(pc.env());
        return Proc.start(cmd, env, work, "agent");
    }

    @ParameterizedTest
    @ValueSource(strings = {"spark", "consumer", "consumer-embedded", "daemonset"})
    void agentContainerRunsAsWritten_answersItsProbesAndClaims_andStopsWithExitZero(String workload) throws Exception {
        int port = AgentProcess.freePort();
        int opsPort = AgentProcess.freePort();
        Path work = Files.createDirectories(dir.resolve("agent-" + workload));
        Container c = agentContainer(workload);
        boolean tokened = workload.equals("daemonset");
        try (Proc agent = startAgent(workload, sentinelUri(), port, opsPort, work)) {
            // the kubelet: startup probe until it passes (within its budget), then readiness and liveness
            Probe startup = c.getStartupProbe();
            long budget = (long) startup.getPeriodSeconds() * startup.getFailureThreshold();
            Tools.await(
                    Duration.ofSeconds(budget),
                    workload + " startup probe " + startup.getHttpGet().getPath() + ": " + agent.output(),
                    () -> Proc.probe("127.0.0.1", opsPort, startup.getHttpGet().getPath(), 1) == 200);
            PodContainer pc = new PodContainer(c, List.of(), Map.of(), Map.of());
            for (Probe p : pc.probes()) {
                assertEquals(7071, pc.probePort(p));
                int timeout = p.getTimeoutSeconds() == null ? 1 : p.getTimeoutSeconds(); // Kubernetes' default
                int status = Proc.probe("127.0.0.1", opsPort, p.getHttpGet().getPath(), timeout);
                assertTrue(
                        status >= 200 && status < 400,
                        workload + " probe " + p.getHttpGet().getPath() + ": " + status);
            }

            // the worker, with what its manifest gives it: DEDUP_URL (the Service's address for the node agent,
            // with DEDUP_TOKEN from the Secret), this machine's port in place of 7070
            String url = "http://127.0.0.1:" + port;
            Map<String, String> workerEnv =
                    tokened ? Map.of("DEDUP_URL", url, "DEDUP_TOKEN", TOKEN) : workerEnvironment(workload, port);
            DedupClient worker = DedupClient.builderFromEnvironment(workerEnv).build();
            assertEquals(URI.create(url), worker.base());
            List<Item> items = new ArrayList<>();
            List<Item> copies = new ArrayList<>();
            for (int i = 0; i < 300; i++) {
                items.add(new Item(workload + "-" + i, "0:" + i));
                copies.add(new Item(workload + "-" + i, "1:" + i));
            }
            assertEquals(Collections.nCopies(300, Verdict.NEW), worker.claim(workload, items));
            assertEquals(Collections.nCopies(300, Verdict.RETRY), worker.claim(workload, items));
            assertEquals(Collections.nCopies(300, Verdict.DUPLICATE), worker.claim(workload, copies));
            String ops = "http://127.0.0.1:" + opsPort;
            // Prometheus's token: the read token of the node agents' Secret, none for the sidecars
            String token = tokened ? READ_TOKEN : null;
            String stats;
            if (tokened) {
                DedupException noToken = assertThrows(
                        DedupException.class,
                        () -> DedupClient.create(URI.create(url)).claim(workload, items));
                assertEquals(401, noToken.status());
                DedupException readOnly = assertThrows(
                        DedupException.class,
                        () -> DedupClient.builder(URI.create(url))
                                .token(READ_TOKEN)
                                .build()
                                .claim(workload, items));
                assertEquals(403, readOnly.status(), "the read token cannot claim");
                assertEquals(401, Proc.get(ops + "/metrics", null).statusCode(), "the ops port wants the token");
                assertEquals(401, Proc.get(ops + "/v1/stats", null).statusCode());
                stats = Proc.get(ops + "/v1/stats", token).body();
            } else {
                // the ops port is on every address of the pod: the stats stay on the claim port, on loopback
                assertEquals(403, Proc.get(ops + "/v1/stats", null).statusCode());
                stats = Proc.get(url + "/v1/stats", null).body();
            }
            assertEquals(200, Proc.get(ops + "/metrics", token).statusCode());
            assertEquals(404, Proc.get(ops + "/v1/claims", token).statusCode(), "the ops port serves no claim API");
            if (workload.equals("consumer-embedded")) {
                assertTrue(stats.contains("\"kind\" : \"embedded\""), stats);
                assertTrue(Files.exists(work.resolve("var-lib-dedup/claims.slots")), "the store on its volume");
            } else {
                assertTrue(stats.contains("\"kind\" : \"redis\""), stats);
                assertFalse(stats.contains(PASSWORD), "the password is never shown");
                assertFalse(agent.output().contains(PASSWORD), "the password is never logged");
            }
            assertFalse(agent.output().contains(TOKEN), "the token is never logged");
            assertFalse(agent.output().contains(READ_TOKEN), "nor the read token");

            assertEquals(0, agent.terminate(Duration.ofSeconds(grace(workload))), agent.output());
            assertTrue(agent.output().contains("dedup-agent: stopped"), agent.output());
        }
    }

    /**
     * The environment of the workload's worker container (the executor, the consumer) as the kubelet gives it,
     * with this machine's claim port in place of 7070.
     */
    static Map<String, String> workerEnvironment(String workload, int port) {
        HasMetadata pod = workload.equals("spark")
                ? Manifests.strict(Manifests.file(Tools.KUBERNETES.resolve("spark/executor-pod-template.yaml"))
                        .get(0))
                : Manifests.render(workload).stream()
                        .map(Manifests::strict)
                        .filter(o -> ManifestsIT.podSpec(o) != null)
                        .findFirst()
                        .orElseThrow();
        Container worker = ManifestsIT.podSpec(pod).getContainers().stream()
                .filter(c -> !c.getName().equals("dedup-agent"))
                .findFirst()
                .orElseThrow();
        return new PodContainer(worker, List.of(), Map.of(), Map.of())
                .replace("127.0.0.1:7070", "127.0.0.1:" + port)
                .env();
    }

    @Test
    void readinessProbeFailsWhileRedisIsGone_tellingTheKubeletNoReason_andTheWorkerGets503() throws Exception {
        try (RedisServer own = RedisServer.start(
                dir.resolve("own-redis"),
                RedisAcl.agentOnly(PASSWORD, RedisServer.Binary.REDIS).toArray(String[]::new))) {
            int port = AgentProcess.freePort();
            int opsPort = AgentProcess.freePort();
            String uri = "redis://dedup:" + PASSWORD + "@127.0.0.1:" + own.port();
            // the node agent: the one with a token, which keeps the reason from callers without it
            try (Proc agent = startAgent(
                    "daemonset", uri, port, opsPort, Files.createDirectories(dir.resolve("agent-unready")))) {
                Tools.await(
                        Duration.ofSeconds(60),
                        "ready: " + agent.output(),
                        () -> Proc.probe("127.0.0.1", opsPort, "/health/ready", 1) == 200);
                DedupClient worker = DedupClient.builder(URI.create("http://127.0.0.1:" + port))
                        .token(TOKEN)
                        .build();
                List<Item> items = List.of(new Item("unready-1", "0:1"), new Item("unready-2", "0:2"));
                assertEquals(List.of(Verdict.NEW, Verdict.NEW), worker.claim("unready", items));

                own.kill();
                Tools.await(
                        Duration.ofSeconds(30),
                        "unready",
                        () -> Proc.probe("127.0.0.1", opsPort, "/health/ready", 3) == 503);
                String probeBody = Proc.get("http://127.0.0.1:" + opsPort + "/health/ready", null)
                        .body();
                assertTrue(probeBody.contains("store redis not ready"), probeBody);
                assertFalse(
                        probeBody.contains(String.valueOf(own.port())),
                        "no shard for a caller without token: " + probeBody);
                String withToken = Proc.get("http://127.0.0.1:" + opsPort + "/health/ready", TOKEN)
                        .body();
                assertTrue(withToken.contains(String.valueOf(own.port())), "the reason, with the token: " + withToken);
                assertEquals(200, Proc.probe("127.0.0.1", opsPort, "/health/live", 2), "live all the same");
                DedupException unavailable = assertThrows(DedupException.class, () -> worker.claim("unready", items));
                assertEquals(503, unavailable.status());

                own.restart();
                Tools.await(
                        Duration.ofSeconds(60),
                        "ready again: " + agent.output(),
                        () -> Proc.probe("127.0.0.1", opsPort, "/health/ready", 3) == 200);
                assertEquals(0, agent.terminate(Duration.ofSeconds(30)), agent.output());
            }
        }
    }
}
