package dev.dedup.agent.testing;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A real Redis Cluster on loopback: {@code masters} {@code redis-server --cluster-enabled yes} processes,
 * each with one replica, on free ports (or one node on each {@link Host} of a test's network), joined by {@code
 * redis-cli --cluster create --cluster-replicas 1}, waited for until every node says {@code cluster_state:ok}, and
 * stopped by PID. Nodes time out after
 * {@value #NODE_TIMEOUT_MS} ms, so a killed master's replica is promoted within a few seconds.
 */
public final class RedisCluster implements AutoCloseable {

    public static final int NODE_TIMEOUT_MS = 1000;

    private final Path dir;
    private final List<RedisServer> nodes;

    private RedisCluster(Path dir, List<RedisServer> nodes) {
        this.dir = dir;
        this.nodes = nodes;
    }

    private static final String[] NODE_ARGS = {
        "--cluster-enabled",
        "yes",
        "--cluster-config-file",
        "nodes.conf",
        "--cluster-node-timeout",
        String.valueOf(NODE_TIMEOUT_MS),
        // Replicas sync at once (Redis waits 5 s by default for more replicas to share a sync).
        "--repl-diskless-sync-delay",
        "0"
    };

    /** Starts {@code masters} masters and as many replicas and makes them one cluster. */
    public static RedisCluster start(Path dir, int masters) throws IOException, InterruptedException {
        List<RedisServer> nodes = new ArrayList<>();
        RedisCluster cluster = new RedisCluster(dir, nodes);
        try {
            for (int i = 0; i < 2 * masters; i++) {
                nodes.add(RedisServer.start(dir.resolve("node-" + i), NODE_ARGS));
            }
            return cluster.create();
        } catch (IOException | InterruptedException | RuntimeException | Error e) {
            cluster.close();
            throw e;
        }
    }

    /**
     * Starts one node on each of {@code hosts}, at {@code port} of its address, and makes them one cluster: the first
     * half masters (as {@code redis-cli} chooses), each with a replica on another host.
     */
    public static RedisCluster startOn(List<Host> hosts, int port, Path dir) throws IOException, InterruptedException {
        List<RedisServer> nodes = new ArrayList<>();
        RedisCluster cluster = new RedisCluster(dir, nodes);
        try {
            for (Host h : hosts) {
                nodes.add(RedisServer.startOn(h, port, dir.resolve("node-" + h.name()), NODE_ARGS));
            }
            return cluster.create();
        } catch (IOException | InterruptedException | RuntimeException | Error e) {
            cluster.close();
            throw e;
        }
    }

    private RedisCluster create() throws IOException, InterruptedException {
        List<String> create = new ArrayList<>(List.of("redis-cli", "--cluster", "create"));
        nodes.forEach(n -> create.add(address(n)));
        create.addAll(List.of("--cluster-replicas", "1", "--cluster-yes"));
        redisCli(create, Duration.ofSeconds(60));
        awaitHealthy(Duration.ofSeconds(30));
        return this;
    }

    private static String address(RedisServer node) {
        return node.host().address() + ":" + node.port();
    }

    /** The node that {@code CLUSTER NODES} names by {@code ip:port@cport}, or null. */
    private RedisServer node(String ipPortBus) {
        String ipPort = ipPortBus.contains("@") ? ipPortBus.substring(0, ipPortBus.indexOf('@')) : ipPortBus;
        return nodes.stream().filter(n -> address(n).equals(ipPort)).findFirst().orElse(null);
    }

    /** Runs {@code redis-cli} with {@code args} (the program first), failing unless it exits 0. */
    public String redisCli(List<String> args, Duration timeout) throws IOException, InterruptedException {
        Path out = dir.resolve("redis-cli-" + System.nanoTime() + ".out");
        Process p = new ProcessBuilder(args)
                .redirectErrorStream(true)
                .redirectOutput(out.toFile())
                .start();
        try {
            if (!p.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                throw new IllegalStateException(String.join(" ", args) + " did not finish within " + timeout);
            }
            String text = java.nio.file.Files.readString(out, StandardCharsets.UTF_8);
            if (p.exitValue() != 0) {
                throw new IllegalStateException(String.join(" ", args) + " exited " + p.exitValue() + ": " + text);
            }
            return text;
        } finally {
            if (p.isAlive()) {
                p.destroyForcibly();
                p.waitFor(10, TimeUnit.SECONDS);
            }
        }
    }

    /**
     * Waits until every running node says {@code cluster_state:ok} and sees every slot served by a master it
     * knows to be up, as the clients will, and every replica has synced with its master (a replica that never
     * synced does not take over when its master fails).
     */
    public void awaitHealthy(Duration timeout) throws InterruptedException {
        RedisServer.await(timeout, () -> {
            for (RedisServer n : running()) {
                try {
                    String info = n.command("CLUSTER", "INFO");
                    if (!info.contains("cluster_state:ok") || !info.contains("cluster_slots_ok:16384")) {
                        return false;
                    }
                    String replication = n.command("INFO", "replication");
                    if (replication.contains("role:slave") && !replication.contains("master_link_status:up")) {
                        return false;
                    }
                } catch (IOException e) {
                    return false;
                }
            }
            return true;
        });
    }

    /** {@code redis-cluster://127.0.0.1:p1,127.0.0.1:p2,...}: every node, as an agent would be given them. */
    public String uri() {
        StringBuilder b = new StringBuilder("redis-cluster://");
        for (int i = 0; i < nodes.size(); i++) {
            b.append(i == 0 ? "" : ",").append(address(nodes.get(i)));
        }
        return b.toString();
    }

    public List<RedisServer> nodes() {
        return nodes;
    }

    /** Nodes whose process runs. */
    public List<RedisServer> running() {
        List<RedisServer> up = new ArrayList<>();
        for (RedisServer n : nodes) {
            try {
                n.command("PING");
                up.add(n);
            } catch (IOException e) {
                // killed
            }
        }
        return up;
    }

    /** The masters serving slots now, as {@code node} sees the cluster. */
    public List<RedisServer> masters() throws IOException {
        List<RedisServer> masters = new ArrayList<>();
        RedisServer anyUp = running().get(0);
        for (String line : anyUp.command("CLUSTER", "NODES").split("\n")) {
            String[] f = line.trim().split(" ");
            if (f.length > 8 && f[2].contains("master") && !f[2].contains("fail")) {
                RedisServer n = node(f[1]);
                if (n != null) {
                    masters.add(n);
                }
            }
        }
        return masters;
    }

    /** The master serving {@code slot}, as the first running node sees the cluster. */
    public RedisServer ownerOfSlot(int slot) throws IOException {
        String view = running().get(0).command("CLUSTER", "NODES");
        for (String line : view.split("\n")) {
            String[] f = line.trim().split(" ");
            if (f.length <= 8 || !f[2].contains("master") || f[2].contains("fail")) {
                continue;
            }
            for (int i = 8; i < f.length; i++) {
                if (f[i].startsWith("[")) {
                    continue; // a slot being migrated or imported
                }
                String[] range = f[i].split("-");
                int lo = Integer.parseInt(range[0]);
                int hi = range.length > 1 ? Integer.parseInt(range[1]) : lo;
                if (lo <= slot && slot <= hi) {
                    return java.util.Objects.requireNonNull(node(f[1]), f[1]);
                }
            }
        }
        throw new IllegalStateException("no master serves slot " + slot + ": " + view);
    }

    /**
     * Opens the migration of {@code slot} from {@code from} to {@code to}, as {@code redis-cli --cluster reshard}
     * does before it moves the slot's keys: the target imports it, then the source migrates it.
     */
    public void beginMigration(int slot, RedisServer from, RedisServer to) throws IOException {
        to.call("CLUSTER", "SETSLOT", String.valueOf(slot), "IMPORTING", nodeId(from));
        from.call("CLUSTER", "SETSLOT", String.valueOf(slot), "MIGRATING", nodeId(to));
    }

    /** The keys {@code node} holds in {@code slot} (binary keys intact). */
    public static List<byte[]> keysInSlot(RedisServer node, int slot) throws IOException {
        List<byte[]> keys = new ArrayList<>();
        for (Object k : (List<?>) node.call("CLUSTER", "GETKEYSINSLOT", String.valueOf(slot), "100000")) {
            keys.add((byte[]) k);
        }
        return keys;
    }

    /** Moves {@code keys} from {@code from} to {@code to} in one atomic {@code MIGRATE}, as a reshard's batch. */
    public static void migrate(RedisServer from, RedisServer to, List<byte[]> keys) throws IOException {
        if (keys.isEmpty()) {
            return;
        }
        List<byte[]> args = new ArrayList<>();
        for (String w : List.of("MIGRATE", "127.0.0.1", String.valueOf(to.port()), "", "0", "5000", "KEYS")) {
            args.add(w.getBytes(StandardCharsets.US_ASCII));
        }
        args.addAll(keys);
        from.call(args.toArray(byte[][]::new));
    }

    /** Ends a migration: every master is told that {@code to} serves {@code slot}, the target first. */
    public void finishMigration(int slot, RedisServer to) throws IOException {
        String id = nodeId(to);
        to.call("CLUSTER", "SETSLOT", String.valueOf(slot), "NODE", id);
        for (RedisServer m : masters()) {
            if (m != to) {
                m.call("CLUSTER", "SETSLOT", String.valueOf(slot), "NODE", id);
            }
        }
    }

    /** The replica of {@code master}, as the master's own {@code INFO replication} names it. */
    public RedisServer replicaOf(RedisServer master) throws IOException {
        for (String line : master.command("INFO", "replication").split("\r\n")) {
            if (line.startsWith("slave0:")) {
                String ip = line.replaceAll(".*ip=([^,]+).*", "$1");
                String port = line.replaceAll(".*port=(\\d+).*", "$1");
                return java.util.Objects.requireNonNull(node(ip + ":" + port), line);
            }
        }
        throw new IllegalStateException("no replica of " + master.port());
    }

    /** The node id of {@code node}. */
    public static String nodeId(RedisServer node) throws IOException {
        return node.command("CLUSTER", "MYID").replaceAll("^\\$\\d+\r\n", "").trim();
    }

    /** Whether {@code node} is a master now (a promoted replica is). */
    public static boolean isMaster(RedisServer node) {
        try {
            return node.command("INFO", "replication").contains("role:master");
        } catch (IOException e) {
            return false;
        }
    }

    /** The sum over running nodes of an {@code INFO errorstats} counter, e.g. {@code MOVED}. */
    public long errorCount(String code) {
        long sum = 0;
        for (RedisServer n : running()) {
            try {
                for (String line : n.command("INFO", "errorstats").split("\r\n")) {
                    if (line.startsWith("errorstat_" + code + ":count=")) {
                        sum += Long.parseLong(line.substring(line.indexOf('=') + 1));
                    }
                }
            } catch (IOException e) {
                // gone meanwhile
            }
        }
        return sum;
    }

    @Override
    public void close() {
        nodes.forEach(RedisServer::close);
    }
}
