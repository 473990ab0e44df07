package dev.dedup.examples.bench;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The Redis shards of a side behind a delaying TCP proxy, as a managed Redis a zone away would be: loadtest's
 * {@code DelayProxy} program (its jar given as {@code -Dpipeline.delay.proxy.jar}) in a process of its own, one
 * listening port per shard, every chunk held for half the round trip (± half the jitter) each way. The agent is
 * given the proxy's addresses; the proxy's CPU is measured apart, since it shares the machine's cores.
 */
final class ShardDelay implements AutoCloseable {

    private final Process process;
    private final List<String> uris;

    private ShardDelay(Process process, List<String> uris) {
        this.process = process;
        this.uris = uris;
    }

    /** A proxy in front of the loopback ports {@code targets}, adding {@code roundTrip} ± {@code jitter}. */
    static ShardDelay start(List<Integer> targets, Duration roundTrip, Duration jitter, Path log)
            throws IOException, InterruptedException {
        String jar = System.getProperty("pipeline.delay.proxy.jar");
        if (jar == null || !Files.isRegularFile(Path.of(jar))) {
            throw new IllegalStateException("--shard-round-trip needs loadtest's jar as -Dpipeline.delay.proxy.jar,"
                    + " not " + jar + " (bench-pipeline.sh passes loadtest/target/dedup-loadtest.jar)");
        }
        List<String> command = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp",
                jar,
                "dev.dedup.loadtest.net.DelayProxy",
                "--round-trip",
                roundTrip.toNanos() / 1000 + "us",
                "--jitter",
                jitter.toNanos() / 1000 + "us"));
        for (int port : targets) {
            command.add("127.0.0.1:0=127.0.0.1:" + port);
        }
        Process p = new ProcessBuilder(command).redirectError(log.toFile()).start();
        List<String> uris = new ArrayList<>();
        BufferedReader out = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
        for (String line; (line = out.readLine()) != null && !line.equals("ready"); ) {
            uris.add("redis://" + line.substring(0, line.indexOf('=')));
        }
        if (!p.isAlive() || uris.size() != targets.size()) {
            p.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            throw new IllegalStateException("the delaying proxy did not start: " + Files.readString(log));
        }
        return new ShardDelay(p, List.copyOf(uris));
    }

    /** The shards' addresses through the proxy, in the order of the targets. */
    List<String> uris() {
        return uris;
    }

    long pid() {
        return process.pid();
    }

    @Override
    public void close() throws InterruptedException {
        process.destroy();
        if (!process.waitFor(10, TimeUnit.SECONDS)) {
            process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        }
    }
}
