package dev.dedup.deploy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.dedup.agent.testing.AgentProcess;
import dev.dedup.client.DedupClient;
import dev.dedup.wire.Item;
import dev.dedup.wire.Verdict;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;

/**
 * deploy/kubernetes/redis-cluster run as its pods run it, on this machine. Each pod of the StatefulSet is its redis
 * container's command (start-redis-cluster.sh, redis.conf, the ACL made from the Secret) as a real redis-server,
 * pod {@code i} on an address of its own, 127.0.0.(100 + i), all on one port, as pods have an address each and the
 * same ports; the stable name a pod announces is that address, which resolves to itself. The bootstrap Job is its
 * container's command (bootstrap-cluster.sh) with the count kustomize wrote into it, run twice; then the consumer's
 * agent container claims through the {@code redis-cluster://} URI of the Secret, over HTTP. Then every pod restarts
 * with the addresses it knew of the others changed, as pods rescheduled together find them, and the cluster forms
 * again from their names; and the count raised to 8 in an overlay, the Job joins the two new pods as a fourth
 * shard, moving slots to it under the running agent.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class RedisClusterPodsIT {

    static final String ADMIN_PASSWORD = KubernetesCommandLinesIT.hex();

    @TempDir
    static Path dir;

    /**
     * The pods' volumes: on tmpfs where the machine has one. Every slot a rebalance moves makes each master
     * fsync its nodes.conf (4,096 slots for a fourth shard), which takes several times longer on a disk.
     */
    static Path volumes;

    static List<JsonNode> rendered;
    static StatefulSet set;
    static Path conf;
    static int port;
    static final List<Proc> pods = new ArrayList<>();
    static Proc agent;
    static int agentPort;
    static int opsPort;
    static DedupClient worker;

    /** "secretName/key" to value: what the operator put in the Secret dedup-redis-tier. */
    static Map<String, String> secrets() {
        return Map.of(
                "dedup-redis-tier/agent-password", KubernetesCommandLinesIT.PASSWORD,
                "dedup-redis-tier/replication-password", KubernetesCommandLinesIT.REPLICATION_PASSWORD,
                "dedup-redis-tier/admin-password", ADMIN_PASSWORD);
    }

    static String address(int pod) {
        return "127.0.0.1" + String.format("%02d", pod);
    }

    @BeforeAll
    static void startThePods() throws Exception {
        Tools.require("redis-server", "redis-server");
        Tools.require("redis-cli", "redis-tools");
        rendered = Manifests.render("redis-cluster");
        set = ManifestsIT.only(rendered, StatefulSet.class);
        // the ConfigMaps as the projected volume mounts them: the scripts and redis.conf in one directory
        conf = Files.createDirectories(dir.resolve("etc"));
        for (JsonNode doc : rendered) {
            if (Manifests.strict(doc) instanceof ConfigMap cm) {
                for (var e : cm.getData().entrySet()) {
                    Files.writeString(conf.resolve(e.getKey()), e.getValue());
                }
            }
        }
        Path shm = Path.of("/dev/shm");
        volumes = Files.isDirectory(shm) && Files.isWritable(shm)
                ? Files.createTempDirectory(shm, "redis-cluster-pods-")
                : Files.createDirectories(dir.resolve("volumes"));
        port = freePortOnEveryPodAddress(8);
        for (int i = 0; i < set.getSpec().getReplicas(); i++) {
            startPod(i);
        }
        for (int i = 0; i < pods.size(); i++) {
            int pod = i;
            Tools.await(Duration.ofSeconds(30), "pod " + i + ": " + pods.get(i).output(), () -> answers(pod));
        }
    }

    /** A port free on 127.0.0.100 to 127.0.0.(100 + pods - 1), with the cluster bus port 10,000 above it. */
    static int freePortOnEveryPodAddress(int pods) throws IOException {
        for (int attempt = 0; attempt < 50; attempt++) {
            int p = AgentProcess.freePort();
            if (p + 10_000 > 65_535) {
                continue;
            }
            boolean free = true;
            for (int i = 0; i < pods && free; i++) {
                for (int q : new int[] {p, p + 10_000}) {
                    try (ServerSocket s = new ServerSocket()) {
                        s.bind(new InetSocketAddress(address(i), q));
                    } catch (IOException taken) {
                        free = false;
                    }
                }
            }
            if (free) {
                return p;
            }
        }
        throw new IllegalStateException("no port free on every pod's address");
    }

    /** Pod {@code i}'s redis container, as the kubelet starts it, with this machine's address, port and paths. */
    static void startPod(int i) throws IOException {
        Path pod = volumes.resolve("pod-" + i);
        Path data = Files.createDirectories(pod.resolve("data"));
        Path run = Files.createDirectories(pod.resolve("run"));
        PodContainer redis = new PodContainer(
                        KubernetesCommandLinesIT.container(set, "redis"),
                        rendered,
                        secrets(),
                        Map.of("metadata.name", "dedup-redis-cluster-" + i, "status.podIP", address(i)))
                .replace("/etc/dedup-redis", conf.toString())
                .override("ANNOUNCE_HOST", address(i))
                .override("REDIS_PORT", String.valueOf(port))
                .override("CLUSTER_BUS_PORT", String.valueOf(port + 10_000))
                .override("CONF_DIR", conf.toString())
                .override("RUN_DIR", run.toString())
                .override("DATA_DIR", data.toString())
                .override("REDIS_BIND", address(i));
        Proc p = Proc.start(redis.commandLine(List.of()), redis.env(), pod, "redis-" + System.nanoTime());
        if (i < pods.size()) {
            pods.set(i, p);
        } else {
            pods.add(p);
        }
    }

    static boolean answers(int pod) {
        try (Resp r = new Resp(InetAddress.getByName(address(pod)), port)) {
            return r.text("PING").contains("NOAUTH");
        } catch (IOException notYet) {
            return false;
        }
    }

    /** A command as the admin user, to pod {@code i}. */
    static String admin(int pod, String... command) throws IOException {
        try (Resp r = new Resp(InetAddress.getByName(address(pod)), port)) {
            assertEquals("OK", r.text("AUTH", "admin", ADMIN_PASSWORD));
            return r.text(command);
        }
    }

    /**
     * The Job's container as the kubelet runs it, with the count of {@code job}'s annotation (the downward API);
     * returns its output, failing unless it exits 0.
     */
    static String runJob(Job job) throws Exception {
        String count =
                job.getSpec().getTemplate().getMetadata().getAnnotations().get("dedup.dev/pods");
        PodContainer bootstrap = new PodContainer(
                        KubernetesCommandLinesIT.container(job, "bootstrap"),
                        rendered,
                        secrets(),
                        Map.of("metadata.annotations['dedup.dev/pods']", count))
                .replace("/etc/dedup-redis", conf.toString())
                .override("POD_HOST", "127.0.0.1%02d")
                .override("REDIS_PORT", String.valueOf(port))
                .override("WAIT_SECONDS", "30");
        try (Proc p = Proc.start(
                bootstrap.commandLine(List.of()), bootstrap.env(), dir.resolve("job"), "job-" + System.nanoTime())) {
            assertTrue(p.process.waitFor(2, TimeUnit.MINUTES), "the Job did not end: " + p.output());
            assertEquals(0, p.process.exitValue(), p.output());
            assertFalse(p.output().contains(ADMIN_PASSWORD), "no password in the Job's output");
            return p.output();
        }
    }

    /** Every running pod says the cluster is ok, every slot served, {@code nodes} nodes. */
    static void awaitClusterOk(int nodes) {
        Tools.await(Duration.ofSeconds(30), "cluster_state:ok on every pod", () -> {
            try {
                for (int i = 0; i < nodes; i++) {
                    String info = admin(i, "CLUSTER", "INFO");
                    if (!info.contains("cluster_state:ok")
                            || !info.contains("cluster_slots_ok:16384")
                            || !info.contains("cluster_known_nodes:" + nodes)) {
                        return false;
                    }
                }
                return true;
            } catch (IOException e) {
                return false;
            }
        });
    }

    @AfterAll
    static void stop() {
        if (agent != null) {
            agent.close();
        }
        pods.forEach(Proc::close);
        if (volumes != null && !volumes.startsWith(dir)) {
            try (var files = Files.walk(volumes)) {
                for (Path f : (Iterable<Path>) files.sorted(Comparator.reverseOrder())::iterator) {
                    Files.delete(f);
                }
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }

    @Test
    @Order(1)
    void theJobFormsTheClusterOfItsCount_andRunAgainChangesNothing() throws Exception {
        Job job = ManifestsIT.only(rendered, Job.class);
        String first = runJob(job);
        assertTrue(first.contains("no cluster yet: creating one of 3 masters with a replica each"), first);
        assertTrue(first.contains("[OK] All 16384 slots covered."), first);
        awaitClusterOk(6);
        String nodesBefore = topology(admin(0, "CLUSTER", "NODES"));
        String again = runJob(job);
        assertTrue(again.contains("every pod is a node of the cluster"), again);
        assertEquals(nodesBefore, topology(admin(0, "CLUSTER", "NODES")), "the second run moved nothing");
        // what the pods run: redis.conf's settings, the ACL of the Secret, 70 % of the container's limit
        assertEquals("[maxmemory-policy, noeviction]", admin(0, "CONFIG", "GET", "maxmemory-policy"));
        assertEquals("[appendonly, yes]", admin(0, "CONFIG", "GET", "appendonly"));
        assertEquals("[cluster-node-timeout, 5000]", admin(0, "CONFIG", "GET", "cluster-node-timeout"));
        assertEquals("[cluster-require-full-coverage, no]", admin(0, "CONFIG", "GET", "cluster-require-full-coverage"));
        assertEquals("[maxmemory, " + (8L << 30) * 7 / 10 + "]", admin(0, "CONFIG", "GET", "maxmemory"));
        try (Resp anonymous = new Resp(InetAddress.getByName(address(0)), port)) {
            assertTrue(anonymous.text("CLUSTER", "NODES").startsWith("-NOAUTH"), "the default user is off");
        }
        try (Resp r = new Resp(InetAddress.getByName(address(0)), port)) {
            assertEquals("OK", r.text("AUTH", "dedup", KubernetesCommandLinesIT.PASSWORD));
            assertTrue(r.text("CLUSTER", "NODES").contains("master"), "the agent's user reads the topology");
            assertTrue(r.text("CLUSTER", "RESET").startsWith("-NOPERM"), "and changes nothing of it");
            assertTrue(r.text("FLUSHALL").startsWith("-NOPERM"));
        }
    }

    @Test
    @Order(2)
    void theAgentOnTheClusterUri_answersNewThenRetryThenDuplicate() throws Exception {
        StringBuilder uri = new StringBuilder("redis-cluster://dedup:" + KubernetesCommandLinesIT.PASSWORD + "@");
        for (int i = 0; i < 3; i++) {
            uri.append(i == 0 ? "" : ",").append(address(i)).append(':').append(port);
        }
        agentPort = AgentProcess.freePort();
        opsPort = AgentProcess.freePort();
        agent = KubernetesCommandLinesIT.startAgent(
                "consumer", uri.toString(), agentPort, opsPort, Files.createDirectories(dir.resolve("agent")));
        awaitAgentReady();
        worker = DedupClient.create(URI.create("http://127.0.0.1:" + agentPort));
        assertEquals(Collections.nCopies(300, Verdict.NEW), worker.claim("clicks", items(0, 300, "0")));
        assertEquals(Collections.nCopies(300, Verdict.RETRY), worker.claim("clicks", items(0, 300, "0")));
        assertEquals(Collections.nCopies(300, Verdict.DUPLICATE), worker.claim("clicks", items(0, 300, "1")));
        // the stats name Redis hosts: the ops port, on every address of the pod, refuses them without a token
        assertEquals(
                403, Proc.get("http://127.0.0.1:" + opsPort + "/v1/stats", null).statusCode());
        String stats =
                Proc.get("http://127.0.0.1:" + agentPort + "/v1/stats", null).body();
        assertTrue(stats.contains("\"kind\" : \"redis\""), stats);
        assertFalse(agent.output().contains(KubernetesCommandLinesIT.PASSWORD), "the password is never logged");
    }

    /**
     * Pods rescheduled together come back on new addresses, and what each knew of the others is stale: every pod
     * stopped, the addresses in their nodes.conf replaced by addresses where nothing listens; started again, each
     * finds the others by the names they announced, and the claims are still there (the AOF replayed: the ACL's
     * default user is off but allowed, see redis.conf).
     */
    @Test
    @Order(3)
    void podsBackWithTheirPeersAddressesStale_findThemByName_andKeepTheClaims() throws Exception {
        for (Proc p : pods) {
            assertEquals(0, p.terminate(Duration.ofSeconds(30)), p.output());
        }
        for (int i = 0; i < pods.size(); i++) {
            Path nodes = volumes.resolve("pod-" + i + "/data/nodes.conf");
            Files.writeString(
                    nodes,
                    Files.readString(nodes).replaceAll("(?m)^(\\S+ )127\\.0\\.0\\.1(\\d\\d):", "$1127.0.0.2$2:"));
        }
        for (int i = 0; i < pods.size(); i++) {
            startPod(i);
        }
        awaitClusterOk(6);
        assertTrue(
                pods.get(0).output().contains("is now at 127.0.0.101 (was 127.0.0.201)"),
                pods.get(0).output());
        awaitAgentReady();
        assertEquals(Collections.nCopies(300, Verdict.DUPLICATE), worker.claim("clicks", items(0, 300, "2")));
    }

    /**
     * The one number raised from 6 to 8 in an overlay: the StatefulSet's two new pods start, and the Job of that
     * overlay joins them as a master and its replica and moves slots to the master, under the running agent. Its
     * claims are still answered right, some now from the new master, and the Job run again changes nothing.
     */
    @Test
    @Order(4)
    void theCountRaisedTo8_theJobAddsAShard_underTheAgent() throws Exception {
        List<JsonNode> eight = Manifests.kustomize(Manifests.overlay(dir, """
                resources:
                  - ../redis-cluster
                replicas:
                  - name: dedup-redis-cluster
                    count: 8
                """));
        assertEquals(8, ManifestsIT.only(eight, StatefulSet.class).getSpec().getReplicas());
        for (int i = 6; i < 8; i++) {
            startPod(i);
            int pod = i;
            Tools.await(Duration.ofSeconds(30), "pod " + i, () -> answers(pod));
        }
        Job job = ManifestsIT.only(eight, Job.class);
        String grown = runJob(job);
        assertTrue(grown.contains(address(6) + ":" + port + " joins as a master"), grown);
        assertTrue(grown.contains(address(7) + ":" + port + " joins as the replica of"), grown);
        assertTrue(grown.contains("moving slots to the masters that have none"), grown);
        awaitClusterOk(8);
        String nodes = admin(0, "CLUSTER", "NODES");
        // <id> <address> <flags> <master> <ping> <pong> <epoch> <link> <slots...>: masters that serve slots
        List<String> serving = nodes.lines()
                .map(l -> l.split(" "))
                .filter(f -> f[2].contains("master") && f.length > 8)
                .map(f -> f[1].substring(0, f[1].indexOf(':')))
                .toList();
        assertEquals(4, serving.size(), nodes);
        assertTrue(serving.contains(address(6)), "the new master serves slots: " + nodes);
        assertTrue(runJob(job).contains("every pod is a node of the cluster"));

        awaitAgentReady();
        assertEquals(Collections.nCopies(300, Verdict.DUPLICATE), worker.claim("clicks", items(0, 300, "3")));
        assertEquals(Collections.nCopies(300, Verdict.NEW), worker.claim("clicks", items(300, 600, "0")));
        assertTrue(
                Long.parseLong(admin(6, "DBSIZE")) > 0, "the new master holds claims: " + admin(6, "CLUSTER", "NODES"));
        assertEquals(0, agent.terminate(Duration.ofSeconds(30)), agent.output());
    }

    /** CLUSTER NODES without the times of the last ping and pong: who serves what, and whose replica is who. */
    static String topology(String nodes) {
        return nodes.lines()
                .map(l -> l.split(" "))
                .map(f -> String.join(" ", f[0], f[1], f[2], f[3], f[6], f[7])
                        + " "
                        + String.join(" ", Arrays.asList(f).subList(8, f.length)))
                .sorted()
                .collect(Collectors.joining("\n"));
    }

    static void awaitAgentReady() {
        Tools.await(
                Duration.ofSeconds(60),
                "agent ready: " + (agent == null ? "" : agent.output()),
                () -> Proc.probe("127.0.0.1", opsPort, "/health/ready", 2) == 200);
    }

    /** Ids {@code from} to {@code to} (excluded), each with the owner {@code attempt}:i. */
    static List<Item> items(int from, int to, String attempt) {
        List<Item> items = new ArrayList<>();
        for (int i = from; i < to; i++) {
            items.add(new Item("click-" + i, attempt + ":" + i));
        }
        return items;
    }
}
