package dev.dedup.deploy;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * A process started from a manifest's or a unit's command line, with exactly the environment given (and the
 * PATH), its output in a file; SIGTERM by {@link #terminate}, SIGKILL by {@link #close}, always by PID.
 */
final class Proc implements AutoCloseable {

    final Process process;
    final Path log;

    private Proc(Process process, Path log) {
        this.process = process;
        this.log = log;
    }

    static Proc start(List<String> command, Map<String, String> env, Path dir, String name) {
        try {
            Files.createDirectories(dir);
            Path log = dir.resolve(name + ".log");
            ProcessBuilder pb = new ProcessBuilder(command)
                    .directory(dir.toFile())
                    .redirectErrorStream(true)
                    .redirectOutput(log.toFile());
            Map<String, String> e = pb.environment();
            String path = e.getOrDefault("PATH", "/usr/local/bin:/usr/bin:/bin");
            e.clear();
            e.put("PATH", path);
            e.putAll(env);
            return new Proc(pb.start(), log);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    String output() {
        return Files.exists(log) ? Tools.read(log) : "";
    }

    /** SIGTERM, then the exit code, or a failure if it does not exit within {@code grace}. */
    int terminate(Duration grace) throws InterruptedException {
        process.destroy();
        if (!process.waitFor(grace.toMillis(), TimeUnit.MILLISECONDS)) {
            throw new AssertionError("still running " + grace + " after SIGTERM:\n" + output());
        }
        return process.exitValue();
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

    private static final HttpClient HTTP =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

    /** An HTTP GET as the kubelet's probe sends it: no credentials. Returns the status, or -1 if refused. */
    static int probe(String host, int port, String path, int timeoutSeconds) {
        try {
            return HTTP.send(
                            HttpRequest.newBuilder(URI.create("http://" + host + ":" + port + path))
                                    .timeout(Duration.ofSeconds(Math.max(1, timeoutSeconds)))
                                    .header("User-Agent", "kube-probe/1.32")
                                    .header("Accept", "*/*")
                                    .GET()
                                    .build(),
                            HttpResponse.BodyHandlers.discarding())
                    .statusCode();
        } catch (IOException e) {
            return -1;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return -1;
        }
    }

    static HttpResponse<String> get(String url, String token) throws IOException, InterruptedException {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(10));
        if (token != null) {
            b.header("Authorization", "Bearer " + token);
        }
        return HTTP.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }
}
