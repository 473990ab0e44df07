package dev.dedup.agent.testing;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;

/**
 * A real Sentinel ({@code redis-server --sentinel}, or {@code valkey-server --sentinel}) on a free loopback port,
 * watching one primary, or on a {@link Host} of a test's own network watching several; stopped by its PID.
 */
public final class RedisSentinel implements AutoCloseable {

    private final Host host;
    private final int port;
    private final Process process;
    /** The user and password the test's own commands log in with, or null for the default user. */
    private final String[] login;

    private RedisSentinel(Host host, int port, Process process, String[] login) {
        this.host = host;
        this.port = port;
        this.process = process;
        this.login = login;
    }

    /** Watches {@code master} at {@code masterPort} with a quorum of 2, declaring it down after 1 s. */
    public static RedisSentinel start(Path dir, String master, int masterPort)
            throws IOException, InterruptedException {
        return start(RedisServer.Binary.REDIS, dir, master, masterPort);
    }

    /** {@link #start(Path, String, int)} with the sentinel mode of {@code binary}. */
    public static RedisSentinel start(RedisServer.Binary binary, Path dir, String master, int masterPort)
            throws IOException, InterruptedException {
        return launch(
                binary,
                Host.LOOPBACK,
                AgentProcess.freePort(),
                dir,
                Map.of(master, new InetSocketAddress("127.0.0.1", masterPort)),
                new Timing(1000, 5000),
                new Extra(2, List.of(), null));
    }

    /**
     * What a sentinel's configuration has besides its port and what it monitors: the quorum, {@code lines} added
     * after the {@code sentinel monitor} lines (users, TLS, {@code sentinel auth-user}...), and the user and password
     * the test's own commands log in with ({@code login}, null for the default user).
     */
    public record Extra(int quorum, List<String> lines, String[] login) {}

    /**
     * A sentinel on a free loopback port watching {@code master} at {@code masterPort}, configured with {@code extra},
     * declaring the primary down after 1 s.
     */
    public static RedisSentinel start(Path dir, String master, int masterPort, Extra extra)
            throws IOException, InterruptedException {
        return launch(
                RedisServer.Binary.REDIS,
                Host.LOOPBACK,
                AgentProcess.freePort(),
                dir,
                Map.of(master, new InetSocketAddress("127.0.0.1", masterPort)),
                new Timing(1000, 5000),
                extra);
    }

    /**
     * How fast the sentinels act: a primary is down after {@code downAfterMillis} without an answer; a failover
     * that does not finish within {@code failoverTimeoutMillis} is tried again after twice that.
     */
    public record Timing(int downAfterMillis, int failoverTimeoutMillis) {}

    /** A sentinel on {@code host} at {@code port}, watching each of {@code masters} with a quorum of 2. */
    public static RedisSentinel startOn(
            Host host, int port, Path dir, Map<String, InetSocketAddress> masters, Timing timing)
            throws IOException, InterruptedException {
        return launch(RedisServer.Binary.REDIS, host, port, dir, masters, timing, new Extra(2, List.of(), null));
    }

    private static RedisSentinel launch(
            RedisServer.Binary binary,
            Host host,
            int port,
            Path dir,
            Map<String, InetSocketAddress> masters,
            Timing timing,
            Extra extra)
            throws IOException, InterruptedException {
        binary.require();
        Files.createDirectories(dir);
        Path conf = dir.resolve("sentinel-" + port + ".conf");
        List<String> lines = new ArrayList<>(List.of(
                "port " + port,
                "bind " + host.address(),
                "protected-mode " + (host.isLoopback() ? "yes" : "no"),
                "dir " + dir,
                "logfile " + dir.resolve("sentinel-" + port + ".log")));
        new TreeMap<>(masters).forEach((master, at) -> {
            lines.add("sentinel monitor " + master + " " + at.getHostString() + " " + at.getPort() + " "
                    + extra.quorum());
            lines.add("sentinel down-after-milliseconds " + master + " " + timing.downAfterMillis());
            lines.add("sentinel failover-timeout " + master + " " + timing.failoverTimeoutMillis());
            lines.add("sentinel parallel-syncs " + master + " 1");
        });
        lines.addAll(extra.lines());
        lines.add("");
        Files.writeString(conf, String.join("\n", lines));
        Process p = new ProcessBuilder(host.command(List.of(binary.command(), conf.toString(), "--sentinel")))
                .redirectErrorStream(true)
                .redirectOutput(dir.resolve("sentinel-" + port + ".out").toFile())
                .start();
        RedisSentinel s = new RedisSentinel(host, port, p, extra.login());
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(15);
        while (System.nanoTime() < deadline) {
            if (!p.isAlive()) {
                throw new IllegalStateException(binary.command() + " --sentinel exited: "
                        + Files.readString(dir.resolve("sentinel-" + port + ".out")));
            }
            try {
                if (s.command("PING").contains("PONG")) {
                    return s;
                }
            } catch (IOException notYet) {
                // not listening yet
            }
            Thread.sleep(20);
        }
        throw new IllegalStateException("sentinel on " + port + " not ready");
    }

    public int port() {
        return port;
    }

    /** {@code host:port} of this sentinel, as a {@code redis-sentinel://} URI lists it. */
    public String address() {
        return host.address() + ":" + port;
    }

    /** The port of the primary this sentinel currently reports for {@code master}, or -1. */
    public int masterPort(String master) throws IOException {
        String reply = command("SENTINEL", "get-master-addr-by-name", master);
        String[] lines = reply.split("\r\n");
        // *2 $9 127.0.0.1 $5 port
        return lines.length >= 5 ? Integer.parseInt(lines[4]) : -1;
    }

    /** {@code address:port} of the primary this sentinel currently reports for {@code master}, or empty. */
    public String masterAddress(String master) throws IOException {
        String reply = command("SENTINEL", "get-master-addr-by-name", master);
        String[] lines = reply.split("\r\n");
        return lines.length >= 5 ? lines[2] + ":" + lines[4] : "";
    }

    /** One command in the inline protocol, its reply as text (e.g. {@code SENTINEL MASTER name}). */
    public String command(String... words) throws IOException {
        try (Socket s = new Socket(host.address(), port)) {
            s.setSoTimeout(5000);
            RedisServer.authenticate(s, login);
            s.getOutputStream().write((String.join(" ", words) + "\r\n").getBytes(StandardCharsets.UTF_8));
            byte[] buf = new byte[4096];
            int n = s.getInputStream().read(buf);
            return n < 0 ? "" : new String(buf, 0, n, StandardCharsets.UTF_8);
        }
    }

    @Override
    public void close() {
        process.destroyForcibly();
        try {
            process.waitFor(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
