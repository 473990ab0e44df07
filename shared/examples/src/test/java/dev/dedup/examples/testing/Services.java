package dev.dedup.examples.testing;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;

/**
 * The processes a test class runs against, started once before its first test and stopped after its last, in a
 * folder of their own that the class's processes may write their logs and state to: a KRaft broker, and if asked an
 * agent on the embedded store. A test takes them as parameters ({@link KafkaBroker}, {@link Agent}) or from the
 * field:
 * {@code @RegisterExtension static final Services services = Services.kafka("lifecycle").withAgent();}.
 */
public final class Services implements BeforeAllCallback, AfterAllCallback, ParameterResolver {

    private final String name;
    private final boolean withAgent;
    private final Map<String, String> brokerSettings;
    private Path dir;
    private KafkaBroker broker;
    private Agent agent;

    private Services(String name, boolean withAgent, Map<String, String> brokerSettings) {
        this.name = name;
        this.withAgent = withAgent;
        this.brokerSettings = brokerSettings;
    }

    /** A broker; its folder is named after {@code name}. */
    public static Services kafka(String name) {
        return new Services(name, false, Map.of());
    }

    /** The folder of this class's processes: their logs, state directories, checkpoints. */
    public Path dir() {
        return dir;
    }

    /** The same, with an agent on the embedded store. */
    public Services withAgent() {
        return new Services(name, true, brokerSettings);
    }

    /** The agent, if asked for. */
    public Agent agent() {
        return agent;
    }

    /** The same, the broker started with {@code settings} over {@link KafkaBroker}'s. */
    public Services withBrokerSettings(Map<String, String> settings) {
        return new Services(name, withAgent, Map.copyOf(settings));
    }

    public KafkaBroker broker() {
        return broker;
    }

    @Override
    public void beforeAll(ExtensionContext context) throws Exception {
        dir = Files.createTempDirectory("kafka-" + name + "-");
        broker = KafkaBroker.start(dir.resolve("kafka"), brokerSettings);
        if (withAgent) {
            agent = Agent.embedded(name, dir.resolve("agent"));
        }
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

    @Override
    public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
        Class<?> type = parameter.getParameter().getType();
        return type == KafkaBroker.class || (withAgent && type == Agent.class);
    }

    @Override
    public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
        Class<?> type = parameter.getParameter().getType();
        return type == KafkaBroker.class ? broker : agent;
    }
}
