package dev.dedup.agent.testing;

import java.io.IOException;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/**
 * A real Sentinel ({@code redis-server --sentinel}, or {@code valkey-server --sentinel}) on a free loopback port,
 * watching one primary; stopped by its PID.
 */
public final class RedisSentinel implements AutoCloseable {

    private final int port;
    private final Process process;

    private RedisSentinel(int port, Process process) {
        this.port = port;
        this.process = process;
    }

    /** Watches {@code master} at {@code masterPort} with a quorum of 2, declaring it down after 1 s. */
    public static RedisSentinel start(Path dir, String master, int masterPort)
            throws IOException, InterruptedException {
        return start(RedisServer.Binary.REDIS, dir, master, masterPort);
    }

    /** {@link #start(Path, String, int)} with the sentinel mode of {@code binary}. */
    public static RedisSentinel start(RedisServer.Binary binary, Path dir, String master, int masterPort)
            throws IOException, InterruptedException {
        binary.require();
        Files.createDirectories(dir);
        int port = AgentProcess.freePort();
        Path conf = dir.resolve("sentinel-" + port + ".conf");
        Files.writeString(
                conf,
                String.join(
                        "\n",
                        "port " + port,
                        "bind 127.0.0.1",
                        "dir " + dir,
                        "logfile " + dir.resolve("sentinel-" + port + ".log"),
                        "sentinel monitor " + master + " 127.0.0.1 " + masterPort + " 2",
                        "sentinel down-after-milliseconds " + master + " 1000",
                        "sentinel failover-timeout " + master + " 5000",
                        "sentinel parallel-syncs " + master + " 1",
                        ""));
        Process p = new ProcessBuilder(binary.command(), conf.toString(), "--sentinel")
                .redirectErrorStream(true)
                .redirectOutput(dir.resolve("sentinel-" + port + ".out").toFile())
                .start();
        RedisSentinel s = new RedisSentinel(port, p);
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

    /** The port of the primary this sentinel currently reports for {@code master}, or -1. */
    public int masterPort(String master) throws IOException {
        String reply = command("SENTINEL", "get-master-addr-by-name", master);
        String[] lines = reply.split("\r\n");
        // *2 $9 127.0.0.1 $5 port
        return lines.length >= 5 ? Integer.parseInt(lines[4]) : -1;
    }

    private String command(String... words) throws IOException {
        try (Socket s = new Socket(InetAddress.getLoopbackAddress(), port)) {
            s.setSoTimeout(5000);
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
