package dev.dedup.examples.testing;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * The real agent jar ({@code agent/target/dedup-agent.jar}, built first by the reactor) in its own JVM on a fixed
 * free port, so that a restart (a sidecar's restart, or one after {@code kill -9}) comes back where the workers
 * expect it. The embedded store lives in its data dir and survives both.
 */
public final class Agent implements AutoCloseable {

    private final Path dir;
    private final int port;
    private final List<String> args;
    private final String name;
    private ChildJvm process;
    private int starts;

    private Agent(String name, Path dir, List<String> args) {
        this.name = name;
        this.dir = dir;
        this.port = PortAllocator.freePort();
        this.args = args;
    }

    /** An agent with the embedded store in {@code dir}/data. */
    public static Agent embedded(String name, Path dir) throws IOException, InterruptedException {
        return start(name, dir, List.of("--data-dir", dir.resolve("data").toString()));
    }

    /** An agent with the embedded store in {@code dir}/data and more flags ({@code --window 10m}). */
    public static Agent embedded(String name, Path dir, List<String> flags) throws IOException, InterruptedException {
        List<String> args =
                new ArrayList<>(List.of("--data-dir", dir.resolve("data").toString()));
        args.addAll(flags);
        return start(name, dir, args);
    }

    /** An agent on Redis shards ({@code redis://...} URIs). */
    public static Agent redis(String name, Path dir, List<String> shardUris) throws IOException, InterruptedException {
        return redis(name, dir, shardUris, List.of());
    }

    /** An agent on Redis shards with more flags. */
    public static Agent redis(String name, Path dir, List<String> shardUris, List<String> flags)
            throws IOException, InterruptedException {
        List<String> args = new ArrayList<>(List.of("--redis", String.join(",", shardUris)));
        args.addAll(flags);
        return start(name, dir, args);
    }

    private static Agent start(String name, Path dir, List<String> args) throws IOException, InterruptedException {
        Agent a = new Agent(name, dir, args);
        a.launch();
        return a;
    }

    public static Path jar() {
        Path jar = Path.of(System.getProperty("pipeline.agent.jar", "../../agent/target/dedup-agent.jar"));
        if (!Files.exists(jar)) {
            throw new IllegalStateException(jar.toAbsolutePath() + " is missing: build the agent (mvn package) first");
        }
        return jar.toAbsolutePath();
    }

    private void launch() throws IOException, InterruptedException {
        Files.createDirectories(dir);
        List<String> cmd = new ArrayList<>(List.of(
                ChildJvm.javaBin(),
                "-Xmx128m",
                "-XX:+UseSerialGC",
                "-jar",
                jar().toString(),
                "--port",
                String.valueOf(port)));
        cmd.addAll(args);
        starts++;
        process = ChildJvm.exec(name, dir.resolve(name + "-" + starts + ".log"), cmd);
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        HttpClient http = HttpClient.newHttpClient();
        while (System.nanoTime() < deadline) {
            if (!process.isAlive()) {
                throw new IllegalStateException(name + " exited:\n" + process.tail());
            }
            try {
                HttpResponse<String> r = http.send(
                        HttpRequest.newBuilder(uri().resolve("/health/ready"))
                                .timeout(Duration.ofSeconds(2))
                                .build(),
                        HttpResponse.BodyHandlers.ofString());
                if (r.statusCode() == 200) {
                    return;
                }
            } catch (IOException notYet) {
                // not listening yet
            }
            Thread.sleep(50);
        }
        throw new IllegalStateException(name + " not ready:\n" + process.tail());
    }

    /** The current process's output. */
    public String log() {
        return process.tail();
    }

    public URI uri() {
        return URI.create("http://127.0.0.1:" + port);
    }

    public long pid() {
        return process.pid();
    }

    /** {@code kill -9}: claims already made survive (the embedded store's mapped file; Redis). */
    public void kill9() throws InterruptedException {
        process.kill9();
    }

    /** Starts again on the same port and store. */
    public void restart() throws IOException, InterruptedException {
        if (process.isAlive()) {
            process.terminate(Duration.ofSeconds(15));
        }
        launch();
    }

    @Override
    public void close() throws InterruptedException {
        if (process != null) {
            process.terminate(Duration.ofSeconds(15));
        }
    }
}
