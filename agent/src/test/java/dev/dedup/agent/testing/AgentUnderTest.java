package dev.dedup.agent.testing;

import dev.dedup.agent.Agent;
import dev.dedup.agent.config.AgentOptions;
import dev.dedup.agent.config.EmbeddedStoreOptions;
import dev.dedup.agent.config.HttpOptions;
import dev.dedup.agent.config.NearCacheOptions;
import dev.dedup.agent.config.RedisOptions;
import dev.dedup.agent.config.WindowOptions;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;

/**
 * An in-process agent on the embedded store for a test class: started, in a folder of its own, before the class's
 * first test and closed after its last. Register it on a static field with {@code @RegisterExtension}; a test takes
 * the {@link Agent} or an {@link AgentHttp} to it as a parameter. A class with two agents reads each from its field.
 *
 * <p>{@link #http()} and {@link #bulkHttp()} are the HTTP settings tests start agents with, so that a test names
 * only the settings it is about.
 */
public final class AgentUnderTest implements BeforeAllCallback, AfterAllCallback, ParameterResolver {

    private final UnaryOperator<HttpOptions.Builder> http;
    private Path dir;
    private Agent agent;
    private AgentHttp client;

    private AgentUnderTest(UnaryOperator<HttpOptions.Builder> http) {
        this.http = http;
    }

    /** An agent on the embedded store, its HTTP settings {@link #http()} as {@code http} changes them. */
    public static AgentUnderTest embedded(UnaryOperator<HttpOptions.Builder> http) {
        return new AgentUnderTest(http);
    }

    /** Small limits, reached cheaply: batches of 100, bodies of 64 KiB, one event loop, a second's grace. */
    public static HttpOptions.Builder http() {
        return HttpOptions.builder()
                .port(0)
                .maxBatch(100)
                .maxBody(1 << 16)
                .idleTimeout(Duration.ofSeconds(30))
                .eventLoops(1)
                .shutdownGrace(Duration.ofSeconds(1));
    }

    /** Room for load: batches of 10,000, bodies of 8 MiB, two event loops. */
    public static HttpOptions.Builder bulkHttp() {
        return http().maxBatch(10_000).maxBody(8L << 20).eventLoops(2).shutdownGrace(Duration.ofSeconds(2));
    }

    /** Options of an agent on a small embedded store in {@code data} (4,096 slots, 8-way), default windows. */
    public static AgentOptions embeddedOptions(Path data, HttpOptions http) {
        return new AgentOptions(http, new EmbeddedStoreOptions(data, 1 << 12, 8), WindowOptions.defaults());
    }

    /**
     * Options of an agent on {@code redis} (or, with {@link RedisOptions#none()}, on an embedded store of 65,536 slots
     * in {@code data}, unused otherwise), {@code nearCacheEntries} in its near-cache.
     */
    public static AgentOptions options(
            HttpOptions http, Path data, WindowOptions windows, RedisOptions redis, long nearCacheEntries) {
        return new AgentOptions(
                http,
                new EmbeddedStoreOptions(data, 1 << 16, 8),
                windows,
                redis,
                new NearCacheOptions(nearCacheEntries));
    }

    @Override
    public void beforeAll(ExtensionContext context) throws IOException {
        dir = Folders.create("dedup-agent-");
        agent = Agent.start(embeddedOptions(dir, http.apply(http()).build()));
        client = new AgentHttp(agent.port());
    }

    @Override
    public void afterAll(ExtensionContext context) throws IOException {
        if (agent != null) {
            agent.close();
        }
        if (dir != null) {
            Folders.delete(dir);
        }
    }

    public Agent agent() {
        return agent;
    }

    public AgentHttp client() {
        return client;
    }

    @Override
    public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
        Class<?> type = parameter.getParameter().getType();
        return type == Agent.class || type == AgentHttp.class;
    }

    @Override
    public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
        return parameter.getParameter().getType() == Agent.class ? agent : client;
    }
}
