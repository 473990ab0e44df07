package dev.dedup.loadtest.faults;

import dev.dedup.agent.testing.AgentProcess;
import dev.dedup.agent.testing.Host;
import dev.dedup.agent.testing.RedisSentinel;
import dev.dedup.agent.testing.RedisServer;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * What one network-fault run starts on the hosts of its network: two shards whose primaries are on {@code r1} and
 * replicas on {@code r2}; optionally a sentinel on each of {@code r1}, {@code r2}, {@code r3} watching both (quorum
 * 2, a primary down after 1 s); and an agent on each of the agent hosts. Everything is stopped by {@link #close()},
 * by PID.
 */
final class FaultDeployment implements AutoCloseable {

    static final int AGENT_PORT = 7070;
    static final int SENTINEL_PORT = 26379;
    static final List<Integer> SHARD_PORTS = List.of(6379, 6380);
    static final RedisSentinel.Timing SENTINEL_TIMING = new RedisSentinel.Timing(1000, 3000);

    final List<RedisServer> primaries = new ArrayList<>();
    final List<RedisServer> replicas = new ArrayList<>();
    final List<RedisSentinel> sentinels = new ArrayList<>();
    final List<AgentProcess> agents = new ArrayList<>();
    private final List<AutoCloseable> started = new ArrayList<>();

    /** The name a sentinel knows shard {@code i} by. */
    static String master(int shard) {
        return "m" + shard;
    }

    /** Starts the shards (and the sentinels when {@code sentinelHosts} is not empty), waiting until they are linked. */
    FaultDeployment(Path dir, Host primaryHost, Host replicaHost, List<Host> sentinelHosts)
            throws IOException, InterruptedException {
        try {
            for (int port : SHARD_PORTS) {
                RedisServer p = RedisServer.startOn(primaryHost, port, dir.resolve("primary-" + port));
                started.add(p);
                primaries.add(p);
                RedisServer r = RedisServer.startOn(
                        replicaHost,
                        port,
                        dir.resolve("replica-" + port),
                        "--replicaof",
                        primaryHost.address(),
                        String.valueOf(port));
                started.add(r);
                replicas.add(r);
            }
            for (RedisServer r : replicas) {
                RedisServer.await(Duration.ofSeconds(20), () -> linked(r));
            }
            if (!sentinelHosts.isEmpty()) {
                Map<String, InetSocketAddress> masters = new java.util.TreeMap<>();
                for (int i = 0; i < primaries.size(); i++) {
                    masters.put(master(i), new InetSocketAddress(primaryHost.address(), SHARD_PORTS.get(i)));
                }
                for (Host h : sentinelHosts) {
                    RedisSentinel s = RedisSentinel.startOn(
                            h, SENTINEL_PORT, dir.resolve("sentinel-" + h.name()), masters, SENTINEL_TIMING);
                    started.add(s);
                    sentinels.add(s);
                }
                // A failover needs a majority of sentinels that know each other and the replica.
                RedisServer.await(Duration.ofSeconds(30), this::sentinelsAcquainted);
            }
        } catch (IOException | InterruptedException | RuntimeException e) {
            close();
            throw e;
        }
    }

    /** The agents' {@code --redis}: each shard through the sentinels, or straight at its primary. */
    String redisUris() {
        if (sentinels.isEmpty()) {
            return primaries.stream().map(RedisServer::uri).collect(Collectors.joining(","));
        }
        String list = sentinels.stream().map(RedisSentinel::address).collect(Collectors.joining(","));
        List<String> uris = new ArrayList<>();
        for (int i = 0; i < primaries.size(); i++) {
            uris.add("redis-sentinel://" + list + "#" + master(i));
        }
        return String.join(",", uris);
    }

    /** Every server and sentinel the agents connect to, for a {@link SlowLink}. */
    List<InetSocketAddress> servers() {
        List<InetSocketAddress> out = new ArrayList<>();
        for (RedisServer s : primaries) {
            out.add(new InetSocketAddress(s.host().address(), s.port()));
        }
        for (RedisServer s : replicas) {
            out.add(new InetSocketAddress(s.host().address(), s.port()));
        }
        for (RedisSentinel s : sentinels) {
            String[] hostPort = s.address().split(":");
            out.add(new InetSocketAddress(hostPort[0], Integer.parseInt(hostPort[1])));
        }
        return out;
    }

    /** Starts an agent on each host (at once), with the timeout shortened to 1 s and {@code waitReplicas}. */
    void startAgents(Path dir, List<Host> hosts, int waitReplicas) throws IOException, InterruptedException {
        agents.addAll(startAgents(dir, hosts, redisUris(), waitReplicas, started));
    }

    /**
     * Starts an agent on each host (at once) on {@code redis}, with the timeout shortened to 1 s and {@code
     * waitReplicas}, adds each to {@code started} (to be stopped) and waits until they are ready.
     */
    static List<AgentProcess> startAgents(
            Path dir, List<Host> hosts, String redis, int waitReplicas, List<AutoCloseable> started)
            throws IOException, InterruptedException {
        List<AgentProcess> agents = new ArrayList<>();
        for (Host h : hosts) {
            AgentProcess a = AgentProcess.launchOn(
                    h,
                    AGENT_PORT,
                    dir.resolve("agent-" + h.name()),
                    // Half the start time on a busy machine (measured: 4.8 s instead of 9.7 s on 2 cores).
                    List.of("-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC"),
                    "--redis",
                    redis,
                    "--redis-timeout",
                    "1s",
                    "--redis-wait-replicas",
                    String.valueOf(waitReplicas),
                    "--shutdown-grace",
                    "1s",
                    "--data-dir",
                    dir.resolve("agent-" + h.name() + "-data").toString());
            started.add(a);
            agents.add(a);
        }
        for (AgentProcess a : agents) {
            a.awaitReady(Duration.ofSeconds(60));
        }
        return agents;
    }

    /** Waits until each replica holds everything its primary had taken when this was called. */
    void awaitReplicated() throws IOException, InterruptedException {
        for (int i = 0; i < primaries.size(); i++) {
            long offset = primaries.get(i).info("replication", "master_repl_offset");
            RedisServer replica = replicas.get(i);
            RedisServer.await(Duration.ofSeconds(10), () -> {
                try {
                    return replica.info("replication", "slave_repl_offset") >= offset;
                } catch (IOException e) {
                    return false;
                }
            });
        }
    }

    /** The address:port every sentinel reports for shard {@code shard}'s primary, one entry per sentinel. */
    List<String> reportedPrimaries(int shard) {
        List<String> out = new ArrayList<>();
        for (RedisSentinel s : sentinels) {
            try {
                out.add(s.masterAddress(master(shard)));
            } catch (IOException e) {
                out.add("unreachable");
            }
        }
        return out;
    }

    static boolean linked(RedisServer replica) {
        try {
            String info = replica.command("INFO", "replication");
            return info.contains("role:slave") && info.contains("master_link_status:up");
        } catch (IOException e) {
            return false;
        }
    }

    private boolean sentinelsAcquainted() {
        for (RedisSentinel s : sentinels) {
            for (int i = 0; i < primaries.size(); i++) {
                try {
                    String reply = s.command("SENTINEL", "MASTER", master(i));
                    if (field(reply, "num-other-sentinels") != sentinels.size() - 1
                            || field(reply, "num-slaves") != 1) {
                        return false;
                    }
                } catch (IOException e) {
                    return false;
                }
            }
        }
        return true;
    }

    /** A numeric field of a flat RESP array of names and values. */
    private static long field(String reply, String name) {
        String[] lines = reply.split("\r\n");
        for (int i = 0; i + 2 < lines.length; i++) {
            if (lines[i].equals(name)) {
                return Long.parseLong(lines[i + 2]);
            }
        }
        return -1;
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
