package dev.dedup.loadtest.faults;

import dev.dedup.agent.testing.AgentProcess;
import dev.dedup.agent.testing.Host;
import dev.dedup.agent.testing.RedisCluster;
import dev.dedup.agent.testing.RedisServer;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * What a Redis Cluster network-fault run starts: a cluster of one node on each of its hosts (half masters, each with
 * a replica on another host; {@code cluster-node-timeout} {@value RedisCluster#NODE_TIMEOUT_MS} ms) and an agent on
 * each agent host, given the cluster by a {@code redis-cluster://} URI naming every node. Everything is stopped by
 * {@link #close()}, by PID.
 */
final class ClusterFaultDeployment implements AutoCloseable {

    static final int NODE_PORT = 6379;

    final RedisCluster cluster;
    final List<AgentProcess> agents = new ArrayList<>();
    private final List<AutoCloseable> started = new ArrayList<>();

    ClusterFaultDeployment(Path dir, List<Host> nodeHosts) throws IOException, InterruptedException {
        cluster = RedisCluster.startOn(nodeHosts, NODE_PORT, dir.resolve("cluster"));
        started.add(cluster);
    }

    /** Starts an agent on each host, as {@link FaultDeployment#startAgents(Path, List, String, int, List)} does. */
    void startAgents(Path dir, List<Host> hosts, int waitReplicas) throws IOException, InterruptedException {
        agents.addAll(FaultDeployment.startAgents(dir, hosts, cluster.uri(), waitReplicas, started));
    }

    /** Waits until {@code replica} holds everything {@code master} had taken when this was called. */
    static void awaitReplicated(RedisServer master, RedisServer replica) throws IOException, InterruptedException {
        long offset = master.info("replication", "master_repl_offset");
        RedisServer.await(Duration.ofSeconds(10), () -> {
            try {
                return replica.info("replication", "slave_repl_offset") >= offset;
            } catch (IOException e) {
                return false;
            }
        });
    }

    @Override
    public void close() {
        for (int i = started.size() - 1; i >= 0; i--) {
            try {
                started.get(i).close();
            } catch (Exception e) {
                // the others are stopped all the same
            }
        }
        started.clear();
    }
}
