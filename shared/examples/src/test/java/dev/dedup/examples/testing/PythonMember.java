package dev.dedup.examples.testing;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The Python consumer member ({@code src/test/python/kafka_consumer_member.py}: the Python client's loop
 * {@code dedup_client.kafka.consume} with kafka-python's {@code KafkaConsumer} or confluent-kafka's {@code Consumer},
 * and a SQLite sink) as a child process, and its {@code dump} of the sink.
 *
 * <p>The interpreter is {@code -Dpipeline.python}, else Debian's {@code /usr/bin/python3} (where apt puts
 * {@code python3-kafka} and {@code python3-confluent-kafka}), else {@code python3}. {@code PYTHONPATH} holds the
 * client's package, from {@code -Dpipeline.python.dir} (the build passes {@code shared/python}). A missing
 * interpreter or Kafka library fails the test: the member exits and its output says why.
 */
public final class PythonMember {

    private static final Path DEBIAN_PYTHON = Path.of("/usr/bin/python3");

    public static String interpreter() {
        String configured = System.getProperty("pipeline.python", "");
        if (!configured.isBlank()) {
            return configured;
        }
        return Files.isExecutable(DEBIAN_PYTHON) ? DEBIAN_PYTHON.toString() : "python3";
    }

    /** {@code shared/python}: the client's package in {@code src}. */
    static Path clientDir() {
        Path dir = Path.of(System.getProperty("pipeline.python.dir", "../python"))
                .toAbsolutePath()
                .normalize();
        if (!Files.isDirectory(dir.resolve("src").resolve("dedup_client"))) {
            throw new IllegalStateException(dir + " holds no src/dedup_client: set -Dpipeline.python.dir");
        }
        return dir;
    }

    static Path script() {
        Path script = Path.of(System.getProperty("pipeline.python.member", "src/test/python/kafka_consumer_member.py"))
                .toAbsolutePath();
        if (!Files.isRegularFile(script)) {
            throw new IllegalStateException(script + " is missing: set -Dpipeline.python.member");
        }
        return script;
    }

    private static Map<String, String> environment() {
        Path dir = clientDir();
        return Map.of(
                "PYTHONPATH", dir.resolve("src").toString(), "PYTHONDONTWRITEBYTECODE", "1", "PYTHONUNBUFFERED", "1");
    }

    /**
     * Starts {@code run bootstrap topic group agentUrl db namespace [faults...]}; output (its {@code VERDICTS},
     * {@code RELEASED}, {@code PAUSED}... lines) to {@code log}.
     */
    public static ChildJvm start(String name, Path log, List<String> runArgs) throws IOException {
        List<String> cmd = new ArrayList<>(List.of(interpreter(), script().toString(), "run"));
        cmd.addAll(runArgs);
        return ChildJvm.exec(name, log, cmd, environment());
    }

    /** The lines of {@code dump db}: {@code AUDIT id times}, {@code COUNT app minute events amount}, {@code OFFSET ..}. */
    public static List<String> dump(Path db, Path log) throws IOException, InterruptedException {
        Files.deleteIfExists(log);
        ChildJvm dump = ChildJvm.exec(
                "sink dump", log, List.of(interpreter(), script().toString(), "dump", db.toString()), environment());
        int exit = dump.awaitExit(Duration.ofSeconds(60));
        if (exit != 0) {
            throw new IllegalStateException("sink dump exited with " + exit + ":\n" + dump.tail());
        }
        return Files.readAllLines(log);
    }

    /** How many lines of the members' output start with {@code prefix}. */
    public static long lines(List<ChildJvm> members, String prefix) {
        return members.stream()
                .flatMap(m -> m.output().lines())
                .filter(l -> l.startsWith(prefix))
                .count();
    }

    private PythonMember() {}
}
