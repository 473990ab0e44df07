package dev.dedup.examples.testing;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * A KRaft broker and an agent on the embedded store, started once for a test class and stopped after it, in a
 * folder of their own that the class's processes may write their logs and state to:
 * {@code @RegisterExtension static final KafkaAndAgent kafka = new KafkaAndAgent("lifecycle");}.
 */
public final class KafkaAndAgent implements BeforeAllCallback, AfterAllCallback {

    private final String name;
    private Path dir;
    private KafkaBroker broker;
    private Agent agent;

    public KafkaAndAgent(String name) {
        this.name = name;
    }

    @Override
    public void beforeAll(ExtensionContext context) throws Exception {
        dir = Files.createTempDirectory("kafka-" + name + "-");
        broker = KafkaBroker.start(dir.resolve("kafka"));
        agent = Agent.embedded(name, dir.resolve("agent"));
    }

    @Override
    public void afterAll(ExtensionContext context) throws Exception {
        try {
            if (agent != null) {
                agent.close();
            }
            if (broker != null) {
                broker.close();
            }
        } finally {
            try (Stream<Path> files = Files.walk(dir)) {
                files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            } catch (IOException e) {
                // a leftover file in the temporary folder fails no test
            }
        }
    }

    public KafkaBroker broker() {
        return broker;
    }

    public Agent agent() {
        return agent;
    }

    /** The folder of this class's processes: their logs, state directories. */
    public Path dir() {
        return dir;
    }
}
