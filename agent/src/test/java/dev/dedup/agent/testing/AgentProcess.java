package dev.dedup.agent.testing;

import java.io.IOException;
import java.net.ServerSocket;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The real agent jar in its own JVM, for restart, {@code kill -9} and SIGTERM tests. Always stopped by
 * {@link #close()}, by its PID.
 */
public final class AgentProcess implements AutoCloseable {

    public static final Path JAR = Path.of("target", "dedup-agent.jar");

    private final Process process;
    private final Path log;
    private final int port;

    private AgentProcess(Process process, Path log, int port) {
        this.process = process;
        this.log = log;
        this.port = port;
    }

    /** Starts the jar with {@code args} (plus {@code --port}) and waits until {@code /health/ready} is 200. */
    public static AgentProcess start(Path workDir, String... args) throws IOException, InterruptedException {
        AgentProcess p = launch(workDir, args);
        p.awaitReady(Duration.ofSeconds(30));
        return p;
    }

    /** Starts the jar without waiting; for tests of start failures. */
    public static AgentProcess launch(Path workDir, String... args) throws IOException {
        if (!Files.exists(JAR)) {
            throw new IllegalStateException(JAR.toAbsolutePath() + " is missing: run mvn package first");
        }
        int port = freePort();
        List<String> cmd = new ArrayList<>(List.of(
                javaBin(), "-Xmx256m", "-jar", JAR.toAbsolutePath().toString(), "--port", String.valueOf(port)));
        cmd.addAll(List.of(args));
        Files.createDirectories(workDir);
        Path log = Files.createTempFile(workDir, "agent-", ".log");
        Process process = new ProcessBuilder(cmd)
                .directory(workDir.toFile())
                .redirectErrorStream(true)
                .redirectOutput(log.toFile())
                .start();
        return new AgentProcess(process, log, port);
    }

    private static String javaBin() {
        return Path.of(System.getProperty("java.home"), "bin", "java").toString();
    }

    public static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    private void awaitReady(Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        AgentHttp http = http();
        while (System.nanoTime() < deadline) {
            if (!process.isAlive()) {
                throw new IllegalStateException("agent exited with " + process.exitValue() + ": " + output());
            }
            try {
                HttpResponse<byte[]> r = http.get("/health/ready");
                if (r.statusCode() == 200) {
                    return;
                }
            } catch (RuntimeException notYet) {
                // not listening yet
            }
            Thread.sleep(50);
        }
        throw new IllegalStateException("agent not ready after " + timeout + ": " + output());
    }

    public AgentHttp http() {
        return new AgentHttp(port);
    }

    public int port() {
        return port;
    }

    public long pid() {
        return process.pid();
    }

    /** SIGKILL: no shutdown hook, no flush. */
    public void kill9() throws InterruptedException {
        process.destroyForcibly();
        process.waitFor(10, TimeUnit.SECONDS);
    }

    /** SIGTERM, then waits for the exit code. */
    public int terminate(Duration timeout) throws InterruptedException {
        process.destroy();
        if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
            throw new IllegalStateException("agent did not exit within " + timeout + " of SIGTERM: " + output());
        }
        return process.exitValue();
    }

    /** Waits for the process to exit by itself (start failures). */
    public int awaitExit(Duration timeout) throws InterruptedException {
        if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
            throw new IllegalStateException("agent still running after " + timeout);
        }
        return process.exitValue();
    }

    public String output() {
        try {
            return Files.readString(log);
        } catch (IOException e) {
            return "(no output: " + e + ")";
        }
    }

    @Override
    public void close() {
        if (process.isAlive()) {
            process.destroyForcibly();
            try {
                process.waitFor(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
