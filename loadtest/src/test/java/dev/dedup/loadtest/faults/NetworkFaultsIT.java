package dev.dedup.loadtest.faults;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dedup.agent.testing.AgentProcess;
import dev.dedup.agent.testing.Host;
import dev.dedup.agent.testing.Network;
import dev.dedup.agent.testing.RedisCluster;
import dev.dedup.agent.testing.RedisServer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Jepsen-style network faults under load: two agents, each on a host (network namespace) of its own, two shards
 * with their primaries on {@code r1} and replicas on {@code r2}, sentinels on {@code r1}, {@code r2} and {@code r3};
 * or a Redis Cluster of six nodes on {@code c1}–{@code c6}; the faults are real packet drops between namespaces. Each fault runs without and with
 * {@code --redis-wait-replicas 1}, under the load generator's mixed stream on both agents, and the ledger counts
 * false drops (never allowed), acknowledged claims lost (allowed only where docs/guarantees.md says) and 503s.
 *
 * <p>Needs root and {@code ip netns}; skipped otherwise. Every namespace, veth, bridge, rule and process is removed
 * at the end, and a crashed run's leftovers ({@code ddnf-*}) at the next start.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class NetworkFaultsIT {

    /** Offered to each agent: enough to measure, little enough for two shared cores and comparable runs. */
    private static final double IDS_PER_SECOND = 5000;
    /** Prepared per agent: 75 s of the offered load, more than any run lasts. */
    private static final int IDS_PER_AGENT = 300_000;

    private static final int BATCH = 100;
    private static final int WORKERS_PER_AGENT = 2;
    /** Once a fault is over, agents must answer again within this (an unending 503 storm is a bug). */
    private static final Duration RECOVERY = Duration.ofSeconds(15);

    @TempDir
    Path dir;

    private Network net;
    private Host r1;
    private Host r2;
    private Host r3;
    private Host a1;
    private Host a2;
    /** The hosts of a Redis Cluster's six nodes. */
    private List<Host> c;

    @BeforeAll
    void network() throws Exception {
        Optional<String> why = Network.unavailable();
        Assumptions.assumeTrue(why.isEmpty(), () -> "network-fault tests skipped: " + why.orElse(""));
        net = Network.create("ddnf", "10.213.0");
        r1 = net.host("r1", 11);
        r2 = net.host("r2", 12);
        r3 = net.host("r3", 13);
        a1 = net.host("a1", 21);
        a2 = net.host("a2", 22);
        c = new java.util.ArrayList<>();
        for (int i = 1; i <= 6; i++) {
            c.add(net.host("c" + i, 30 + i));
        }
    }

    @AfterAll
    void removeNetwork() throws Exception {
        if (net != null) {
            net.close();
        }
    }

    /**
     * (a) Both agents lose the primaries (standalone shards, given by address) for 10 s; the primaries keep their
     * replicas. Batches are refused while cut off, none is answered wrong, nothing is lost, and the agents answer
     * again within seconds of the heal.
     */
    @ParameterizedTest(name = "wait-replicas {0}")
    @ValueSource(ints = {0, 1})
    void agentsCutOffFromThePrimaries_refuseUntilHealed_loseNothing(int waitReplicas) throws Exception {
        Path d = dir.resolve("cut-" + waitReplicas);
        phase("cut, wait-replicas " + waitReplicas + ": start");
        try (FaultDeployment deployment = new FaultDeployment(d, r1, r2, List.of())) {
            current = deployment;
            deployment.startAgents(d, List.of(a1, a2), waitReplicas);
            phase("agents ready");
            FaultLoad load = load(deployment, "cut-" + waitReplicas);
            try {
                load.start(WORKERS_PER_AGENT, IDS_PER_SECOND);
                Thread.sleep(2000);
                net.partition(List.of(a1, a2), List.of(r1));
                phase("partitioned");
                Thread.sleep(10_000);
                net.healAll();
                long healed = System.nanoTime();
                phase("healed");
                Thread.sleep(4000);
                load.stop();
                assertRecovered(load, healed);
                load.sendFinalCopies(1000);
                phase("final copies answered");
            } finally {
                load.stop();
                net.healAll();
            }
            FaultLoad.Outcome outcome = report("primaries cut off 10 s", waitReplicas, load);
            assertEquals(0, outcome.falseDrops(), "false drops");
            assertEquals(0, outcome.lostClaims(), "no failover, so no acknowledged claim may be lost");
            assertTrue(outcome.refusals() > 0, "the partition was felt");
            assertEquals(List.of(), outcome.problems());
        }
    }

    /**
     * (b) Split brain: the primaries' host and one agent are cut off from the replicas' host, the other agent and two
     * of the three sentinels, which promote the replicas; the cut heals 2 s after the promotion, and the sentinels
     * turn the old primaries into replicas of the new ones, discarding what they took meanwhile. The agent on the
     * majority's side, whose connections to the old primaries are silent, asks the sentinels again when its calls time
     * out and moves to the promoted replicas before the heal (without WAIT it answers again from them). Without WAIT
     * the isolated agent's claims, acknowledged by the old primaries, are lost (their later copies answer {@code
     * new}), at most all it acknowledged between the cut and the demotion; with {@code --redis-wait-replicas 1} the
     * old primaries acknowledge nothing (no replica answers), so nothing is lost. Never a false drop.
     */
    @ParameterizedTest(name = "wait-replicas {0}")
    @ValueSource(ints = {0, 1})
    void primariesIsolatedWithOneAgent_failOver_withoutWaitTheirClaimsAreLost_withWaitNone(int waitReplicas)
            throws Exception {
        Path d = dir.resolve("split-" + waitReplicas);
        phase("split, wait-replicas " + waitReplicas + ": start");
        try (FaultDeployment deployment = new FaultDeployment(d, r1, r2, List.of(r1, r2, r3))) {
            current = deployment;
            deployment.startAgents(d, List.of(a1, a2), waitReplicas);
            phase("agents ready");
            FaultLoad load = load(deployment, "split-" + waitReplicas);
            long isolatedClaims;
            long allClaims;
            try {
                load.start(WORKERS_PER_AGENT, IDS_PER_SECOND);
                Thread.sleep(2000);
                // Claims answered before this are on the replicas before the cut: only later ones can be lost.
                long claimedBefore = load.newAnswers(0);
                long allClaimedBefore = load.newAnswers();
                deployment.awaitReplicated();
                net.partition(List.of(r1, a1), List.of(r2, r3, a2));
                long cut = System.nanoTime();
                phase("partitioned");
                RedisServer.await(Duration.ofSeconds(30), () -> majorityPromoted(deployment));
                long promoted = System.nanoTime();
                phase("replicas promoted");
                RedisServer.await(Duration.ofSeconds(10), () -> connectedToAll(a2, deployment.replicas));
                phase(seconds("a2 connected to the promoted replicas", cut, promoted));
                if (waitReplicas == 0) {
                    long answered = load.idsAnswered(1);
                    RedisServer.await(Duration.ofSeconds(10), () -> load.idsAnswered(1) > answered);
                    phase(seconds("a2 answers again", cut, promoted));
                }
                Thread.sleep(Math.max(0, 2000 - (System.nanoTime() - promoted) / 1_000_000));
                net.healAll();
                phase("healed");
                // The sentinels see the old primaries again within their 10 s INFO period, and demote them.
                RedisServer.await(Duration.ofSeconds(30), () -> oldPrimariesDemoted(deployment));
                long settled = System.nanoTime();
                isolatedClaims = load.newAnswers(0) - claimedBefore;
                allClaims = load.newAnswers() - allClaimedBefore;
                phase("old primaries are replicas");
                Thread.sleep(4000);
                load.stop();
                assertRecovered(load, settled);
                load.sendFinalCopies(1000);
                phase("final copies answered");
            } finally {
                load.stop();
                net.healAll();
            }
            FaultLoad.Outcome outcome = report("split brain", waitReplicas, load);
            System.out.println("  from the cut to the old primaries' demotion the isolated agent acknowledged "
                    + isolatedClaims + " claims, both agents " + allClaims);
            assertEquals(0, outcome.falseDrops(), "false drops");
            assertEquals(List.of(), outcome.problems());
            if (waitReplicas > 0) {
                assertEquals(0, outcome.lostClaims(), "with WAIT the isolated primaries acknowledge nothing");
            } else {
                assertTrue(
                        outcome.lostClaims() > 0,
                        "the isolated primaries took claims that the promotion discards: the ledger must see them");
                assertTrue(
                        outcome.lostClaims() <= allClaims,
                        "only claims acknowledged between the cut and the demotion may be lost");
            }
        }
    }

    /**
     * (d) A Redis Cluster master cut off from the majority: three masters and three replicas, each node on a host of
     * its own ({@code cluster-node-timeout} 1 s); one master is cut off from the other five nodes while both agents
     * still reach every node, and the cut heals once its replica is promoted; the old master then rejoins as the new
     * one's replica, discarding what it took meanwhile. Until {@code cluster-node-timeout} makes it refuse writes, the
     * cut-off master answers the claims of its slots (Redis Cluster's documented write-loss window): without WAIT
     * their later copies answer {@code new}, counted and printed; with {@code --redis-wait-replicas 1} it
     * acknowledges none (its replica does not answer), so nothing is lost. Never a false drop.
     */
    @ParameterizedTest(name = "wait-replicas {0}")
    @ValueSource(ints = {0, 1})
    void clusterMasterCutOffUntilItsReplicaIsPromoted_withoutWaitItsClaimsAreLost_withWaitNone(int waitReplicas)
            throws Exception {
        Path d = dir.resolve("cluster-" + waitReplicas);
        phase("cluster, wait-replicas " + waitReplicas + ": start");
        try (ClusterFaultDeployment deployment = new ClusterFaultDeployment(d, c)) {
            current = null;
            phase("cluster ready");
            deployment.startAgents(d, List.of(a1, a2), waitReplicas);
            phase("agents ready");
            FaultLoad load = new FaultLoad(
                    deployment.agents.stream().map(AgentProcess::http).toList(),
                    "cluster-" + waitReplicas,
                    IDS_PER_AGENT,
                    BATCH);
            RedisServer master = deployment.cluster.masters().get(0);
            RedisServer replica = deployment.cluster.replicaOf(master);
            List<Host> others = c.stream().filter(h -> !h.equals(master.host())).toList();
            long claimsWhileCut;
            try {
                load.start(WORKERS_PER_AGENT, IDS_PER_SECOND);
                Thread.sleep(2000);
                ClusterFaultDeployment.awaitReplicated(master, replica);
                long claimedBefore = load.newAnswers();
                net.partition(List.of(master.host()), others);
                phase("master " + master.host().name() + " cut off from the other nodes");
                RedisServer.await(Duration.ofSeconds(30), () -> RedisCluster.isMaster(replica));
                claimsWhileCut = load.newAnswers() - claimedBefore;
                phase("its replica " + replica.host().name() + " promoted");
                net.healAll();
                phase("healed");
                RedisServer.await(Duration.ofSeconds(30), () -> FaultDeployment.linked(master));
                long settled = System.nanoTime();
                phase("the old master is the new one's replica");
                Thread.sleep(3000);
                load.stop();
                assertRecovered(load, settled);
                load.sendFinalCopies(1000);
                phase("final copies answered");
            } finally {
                load.stop();
                net.healAll();
            }
            FaultLoad.Outcome outcome = report("cluster master cut off", waitReplicas, load);
            System.out.println("  from the cut to the promotion the agents acknowledged " + claimsWhileCut
                    + " claims; lost: " + outcome.lostClaims());
            assertEquals(0, outcome.falseDrops(), "false drops");
            assertEquals(List.of(), outcome.problems());
            if (waitReplicas > 0) {
                assertEquals(0, outcome.lostClaims(), "with WAIT the cut-off master acknowledges nothing");
            } else {
                assertTrue(
                        outcome.lostClaims() <= claimsWhileCut,
                        "only claims acknowledged between the cut and the promotion may be lost");
            }
        }
    }

    /**
     * (c) One agent's path to every server and sentinel gets 100 ms ± 50 ms of delay each way and loses 5 % of its
     * packets for 10 s ({@code netem}'s {@code delay 100ms 50ms loss 5%}; this kernel has no netem, so the delay
     * is a proxy in the path, {@link SlowLink}, and the loss an iptables rule). Answers are slower, some refused; none is wrong,
     * nothing is lost. With {@code --redis-wait-replicas 1} the link is impaired for 5 s only: what it shows, the
     * rate through the slow path and that nothing is refused or lost, holds from the first second.
     */
    @ParameterizedTest(name = "wait-replicas {0}")
    @ValueSource(ints = {0, 1})
    void slowLossyLinkFromOneAgent_slowsOrRefuses_losesNothing(int waitReplicas) throws Exception {
        Path d = dir.resolve("slow-" + waitReplicas);
        phase("slow, wait-replicas " + waitReplicas + ": start");
        try (FaultDeployment deployment = new FaultDeployment(d, r1, r2, List.of(r1, r2, r3));
                SlowLink link = SlowLink.open(net, a1, deployment.servers())) {
            current = deployment;
            deployment.startAgents(d, List.of(a1, a2), waitReplicas);
            phase("agents ready");
            FaultLoad load = load(deployment, "slow-" + waitReplicas);
            try {
                load.start(WORKERS_PER_AGENT, IDS_PER_SECOND);
                Thread.sleep(2000);
                long slowBefore = load.idsAnswered(0);
                long fastBefore = load.idsAnswered(1);
                int seconds = waitReplicas == 0 ? 10 : 5;
                link.impair(Duration.ofMillis(100), Duration.ofMillis(50), 5);
                phase("impaired");
                Thread.sleep(seconds * 1000L);
                link.clear();
                long healed = System.nanoTime();
                long slow = load.idsAnswered(0) - slowBefore;
                long fast = load.idsAnswered(1) - fastBefore;
                phase("cleared: in those " + seconds + " s the slow agent answered " + slow / seconds
                        + " ids/s, the other " + fast / seconds);
                assertTrue(2 * slow < fast, "the slow path was felt: " + slow + " ids against " + fast);
                Thread.sleep(3000);
                load.stop();
                assertRecovered(load, healed);
                load.sendFinalCopies(1000);
                phase("final copies answered");
            } finally {
                load.stop();
            }
            FaultLoad.Outcome outcome = report("slow, lossy link", waitReplicas, load);
            assertEquals(0, outcome.falseDrops(), "false drops");
            assertEquals(0, outcome.lostClaims(), "no failover, so no acknowledged claim may be lost");
            assertEquals(List.of(), outcome.problems());
        }
    }

    private static boolean majorityPromoted(FaultDeployment deployment) {
        for (int shard = 0; shard < FaultDeployment.SHARD_PORTS.size(); shard++) {
            String promoted = deployment.replicas.get(shard).host().address() + ":"
                    + deployment.replicas.get(shard).port();
            List<String> reported = deployment.reportedPrimaries(shard);
            if (!reported.get(1).equals(promoted) || !reported.get(2).equals(promoted)) {
                return false;
            }
        }
        return true;
    }

    /** Whether {@code agent} holds a connection to each of {@code servers} (CLIENT LIST). */
    private static boolean connectedToAll(Host agent, List<RedisServer> servers) {
        for (RedisServer server : servers) {
            try {
                if (!server.command("CLIENT", "LIST").contains("addr=" + agent.address() + ":")) {
                    return false;
                }
            } catch (java.io.IOException e) {
                return false;
            }
        }
        return true;
    }

    private static String seconds(String what, long cutNanos, long promotedNanos) {
        long now = System.nanoTime();
        return String.format(
                Locale.ROOT,
                "%s, %.1f s after the cut, %.1f s after the promotion",
                what,
                (now - cutNanos) / 1e9,
                (now - promotedNanos) / 1e9);
    }

    private static boolean oldPrimariesDemoted(FaultDeployment deployment) {
        return deployment.primaries.stream().allMatch(FaultDeployment::linked);
    }

    private FaultLoad load(FaultDeployment deployment, String runId) {
        return new FaultLoad(deployment.agents.stream().map(AgentProcess::http).toList(), runId, IDS_PER_AGENT, BATCH);
    }

    private static void assertRecovered(FaultLoad load, long healedNanos) {
        double after = (load.lastRefusalNanos() - healedNanos) / 1e9;
        assertTrue(
                after < RECOVERY.toSeconds(),
                String.format(Locale.ROOT, "agents still refused batches %.1f s after the fault was over", after));
    }

    private static FaultLoad.Outcome report(String fault, int waitReplicas, FaultLoad load) {
        FaultLoad.Outcome outcome = load.outcome();
        System.out.println("network fault: " + fault + ", wait-replicas " + waitReplicas + ": " + outcome.summary());
        return outcome;
    }

    private long t0 = System.nanoTime();
    private FaultDeployment current;

    /** Which servers each agent holds connections to (CLIENT LIST), e.g. {@code a1->r1:6379}. */
    private String connections() {
        if (current == null) {
            return "";
        }
        List<String> out = new java.util.ArrayList<>();
        List<RedisServer> servers = new java.util.ArrayList<>(current.primaries);
        servers.addAll(current.replicas);
        for (RedisServer server : servers) {
            String clients;
            try {
                clients = server.command("CLIENT", "LIST");
            } catch (java.io.IOException | RuntimeException e) {
                continue;
            }
            for (Host agent : List.of(a1, a2)) {
                if (clients.contains("addr=" + agent.address() + ":")) {
                    out.add(agent.name().substring(5) + "->"
                            + server.host().name().substring(5) + ":" + server.port());
                }
            }
        }
        return " " + out;
    }

    /** A line with the seconds since the previous phase's start, to see where a run spends its time. */
    private void phase(String what) {
        long now = System.nanoTime();
        if (what.endsWith(": start")) {
            t0 = now;
        }
        System.out.printf(Locale.ROOT, "  [%5.1f s] %s%s%n", (now - t0) / 1e9, what, connections());
    }
}
