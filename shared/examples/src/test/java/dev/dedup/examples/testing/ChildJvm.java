package dev.dedup.examples.testing;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/**
 * A JVM the test starts with the module's test classpath (the broker, a consumer member), its output in a log
 * file; stopped by its PID: {@link #kill9()} for a crash, {@link #terminate(Duration)} for SIGTERM.
 */
public final class ChildJvm implements AutoCloseable {

    private final Process process;
    private final Path log;
    private final String name;

    private ChildJvm(String name, Process process, Path log) {
        this.name = name;
        this.process = process;
        this.log = log;
    }

    /**
     * The test classpath the build wrote to a module's {@code target/test-classpath.txt} ({@code
     * pipeline.classpath.file}), with the classes and test classes beside it in that {@code target}. A test of
     * shared/examples/flink points the property at shared/examples' file, so that its JVMs (the broker, the members)
     * run on shared/examples' classpath too.
     */
    public static String classpath() {
        Path file = Path.of(System.getProperty("pipeline.classpath.file", "target/test-classpath.txt"))
                .toAbsolutePath();
        try {
            String deps = Files.readString(file).trim();
            return file.resolveSibling("test-classes")
                    + java.io.File.pathSeparator
                    + file.resolveSibling("classes")
                    + java.io.File.pathSeparator
                    + deps;
        } catch (IOException e) {
            throw new IllegalStateException(file + " is missing: build with mvn (generate-test-resources) first", e);
        }
    }

    /**
     * This module's classes and test classes, then the Spark 3.5 application's classpath for {@code scala} (built by
     * {@code shared/examples/spark-3.5/scala-*}: Spark, its Kafka source, the client, the JDBC driver): nothing of
     * the Spark 4 the module is compiled against.
     */
    public static String classpathOnSpark35(String scala) {
        Path file = Path.of(System.getProperty("pipeline.spark3.dir", "spark-3.5"))
                .resolve("scala-" + scala)
                .resolve("target")
                .resolve("classpath.txt");
        try {
            return Path.of("target", "test-classes").toAbsolutePath()
                    + java.io.File.pathSeparator
                    + Path.of("target", "classes").toAbsolutePath()
                    + java.io.File.pathSeparator
                    + Files.readString(file).trim();
        } catch (IOException e) {
            throw new IllegalStateException(file + " is missing: build shared/examples/spark-3.5 with mvn first", e);
        }
    }

    public static String javaBin() {
        return Path.of(System.getProperty("java.home"), "bin", "java").toString();
    }

    /** Starts {@code mainClass} with {@code jvmArgs} and {@code args}; output to {@code log}. */
    public static ChildJvm start(String name, Path log, List<String> jvmArgs, String mainClass, List<String> args)
            throws IOException {
        return start(name, log, jvmArgs, mainClass, args, java.util.Map.of());
    }

    /** {@link #start} with {@code env} added to this process's environment (a pod's {@code DEDUP_URL}). */
    public static ChildJvm start(
            String name,
            Path log,
            List<String> jvmArgs,
            String mainClass,
            List<String> args,
            java.util.Map<String, String> env)
            throws IOException {
        List<String> cmd = new ArrayList<>();
        cmd.add(javaBin());
        cmd.addAll(jvmArgs);
        cmd.add("-cp");
        cmd.add(classpath());
        cmd.add(mainClass);
        cmd.addAll(args);
        return exec(name, log, cmd, env);
    }

    /** Runs any command as a child, output to {@code log}. */
    public static ChildJvm exec(String name, Path log, List<String> cmd) throws IOException {
        return exec(name, log, cmd, java.util.Map.of());
    }

    /** Runs any command as a child with {@code env} added to this process's environment, output to {@code log}. */
    public static ChildJvm exec(String name, Path log, List<String> cmd, java.util.Map<String, String> env)
            throws IOException {
        Files.createDirectories(log.getParent());
        ProcessBuilder b = new ProcessBuilder(cmd)
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
        b.environment().putAll(env);
        return new ChildJvm(name, b.start(), log);
    }

    public long pid() {
        return process.pid();
    }

    public boolean isAlive() {
        return process.isAlive();
    }

    public String output() {
        try {
            return Files.readString(log);
        } catch (IOException e) {
            return "(no output: " + e + ")";
        }
    }

    public Path log() {
        return log;
    }

    /** Waits until a line of the output matches, failing if the process exits first or time runs out. */
    public String awaitLine(Predicate<String> line, Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline) {
            for (String l : output().split("\n")) {
                if (line.test(l)) {
                    return l;
                }
            }
            if (!process.isAlive()) {
                throw new IllegalStateException(name + " exited with " + process.exitValue() + ":\n" + tail());
            }
            Thread.sleep(50);
        }
        throw new IllegalStateException(name + ": no such line after " + timeout + ":\n" + tail());
    }

    /**
     * Waits until a line of the output matches (returned) or the process exits without one (empty), failing if time
     * runs out first.
     */
    public Optional<String> awaitLineOrExit(Predicate<String> line, Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline) {
            boolean alive = process.isAlive(); // before reading, so that an exit leaves its last lines read
            for (String l : output().split("\n")) {
                if (line.test(l)) {
                    return Optional.of(l);
                }
            }
            if (!alive) {
                return Optional.empty();
            }
            Thread.sleep(50);
        }
        throw new IllegalStateException(name + ": no such line after " + timeout + ":\n" + tail());
    }

    /** The last lines of the output, for failure messages. */
    public String tail() {
        String[] lines = output().split("\n");
        StringBuilder sb = new StringBuilder();
        for (int i = Math.max(0, lines.length - 40); i < lines.length; i++) {
            sb.append(lines[i]).append('\n');
        }
        return sb.toString();
    }

    /** SIGKILL: no shutdown hook runs, nothing more is written. */
    public void kill9() throws InterruptedException {
        process.destroyForcibly();
        process.waitFor(10, TimeUnit.SECONDS);
    }

    /** SIGTERM, then waits; SIGKILL if it has not exited in time. Returns the exit code. */
    public int terminate(Duration timeout) throws InterruptedException {
        process.destroy();
        if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
            kill9();
        }
        return process.exitValue();
    }

    /** Waits for the process to exit by itself. */
    public int awaitExit(Duration timeout) throws InterruptedException {
        if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
            throw new IllegalStateException(name + " still running after " + timeout + ":\n" + tail());
        }
        return process.exitValue();
    }

    @Override
    public void close() {
        if (process.isAlive()) {
            try {
                terminate(Duration.ofSeconds(10));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                process.destroyForcibly();
            }
        }
    }
}
