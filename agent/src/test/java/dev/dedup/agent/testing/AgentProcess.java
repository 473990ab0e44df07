package dev.dedup.agent.testing;

import java.io.IOException;
import java.net.ServerSocket;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The real agent jar in its own JVM, for restart, {@code kill -9} and SIGTERM tests. Always stopped by
 * {@link #close()}, by its PID.
 */
public final class AgentProcess implements AutoCloseable {

    public static final Path JAR = Path.of("target", "dedup-agent.jar");
    /** The same jar, seen from a sibling module's directory (tests of modules built after the agent). */
    private static final Path JAR_FROM_SIBLING = Path.of("..", "agent", "target", "dedup-agent.jar");

    private final Process process;
    private final Path log;
    private final Host host;
    private final int port;

    private AgentProcess(Process process, Path log, Host host, int port) {
        this.process = process;
        this.log = log;
        this.host = host;
        this.port = port;
    }

    /** Starts the jar with {@code args} (plus {@code --port}) and waits until {@code /health/ready} is 200. */
    public static AgentProcess start(Path workDir, String... args) throws IOException, InterruptedException {
        return start(workDir, Map.of(), args);
    }

    /**
     * {@link #start(Path, String...)} with {@code env} added to this process's environment (a pod's variables). The
     * probe it waits on needs no token, so a {@code DEDUP_TOKEN} there does not stop it.
     */
    public static AgentProcess start(Path workDir, Map<String, String> env, String... args)
            throws IOException, InterruptedException {
        AgentProcess p = launch(Host.LOOPBACK, freePort(), workDir, List.of(), env, List.of(args));
        try {
            p.awaitReady(Duration.ofSeconds(30));
        } catch (RuntimeException | InterruptedException | Error e) {
            p.close(); // a process the caller never got would outlive the test
            throw e;
        }
        return p;
    }

    /**
     * Starts the jar on {@code host} at {@code port} of its address, without waiting ({@link #awaitReady}). Off
     * loopback it binds the host's address with {@code --insecure-bind}: the test's network is its own.
     */
    public static AgentProcess launchOn(Host host, int port, Path workDir, String... args) throws IOException {
        return launchOn(host, port, workDir, List.of(), args);
    }

    /** {@link #launchOn(Host, int, Path, String...)} with options for the JVM, e.g. to start faster. */
    public static AgentProcess launchOn(Host host, int port, Path workDir, List<String> jvmOptions, String... args)
            throws IOException {
        List<String> all = new ArrayList<>();
        if (!host.isLoopback()) {
            all.addAll(List.of("--host", host.address(), "--insecure-bind"));
        }
        all.addAll(List.of(args));
        return launch(host, port, workDir, jvmOptions, Map.of(), all);
    }

    /** Starts the jar without waiting; for tests of start failures. */
    public static AgentProcess launch(Path workDir, String... args) throws IOException {
        return launch(workDir, Map.of(), args);
    }

    /** {@link #launch(Path, String...)} with {@code env} added to this process's environment. */
    public static AgentProcess launch(Path workDir, Map<String, String> env, String... args) throws IOException {
        return launch(Host.LOOPBACK, freePort(), workDir, List.of(), env, List.of(args));
    }

    private static AgentProcess launch(
            Host host, int port, Path workDir, List<String> jvmOptions, Map<String, String> env, List<String> args)
            throws IOException {
        Path jar = Files.exists(JAR) ? JAR : JAR_FROM_SIBLING;
        if (!Files.exists(jar)) {
            throw new IllegalStateException(JAR.toAbsolutePath() + " is missing: run mvn package first");
        }
        List<String> cmd = new ArrayList<>(List.of(javaBin(), "-Xmx256m"));
        cmd.addAll(jvmOptions);
        cmd.addAll(List.of("-jar", jar.toAbsolutePath().toString(), "--port", String.valueOf(port)));
        cmd.addAll(args);
        Files.createDirectories(workDir);
        Path log = Files.createTempFile(workDir, "agent-", ".log");
        ProcessBuilder builder = new ProcessBuilder(host.command(cmd))
                .directory(workDir.toFile())
                .redirectErrorStream(true)
                .redirectOutput(log.toFile());
        builder.environment().putAll(env);
        Process process = builder.start();
        return new AgentProcess(process, log, host, port);
    }

    private static String javaBin() {
        return Path.of(System.getProperty("java.home"), "bin", "java").toString();
    }

    public static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    /** Waits until {@code /health/ready} answers 200; fails with the agent's output if it exits or times out. */
    public void awaitReady(Duration timeout) throws InterruptedException {
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
        return new AgentHttp(host.address(), port);
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
