package dev.dedup.examples.spark;

import dev.dedup.client.DedupClient;
import java.net.URI;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The agent beside this executor, one client per executor JVM and agent, kept between tasks. In production it is
 * the one the executor pod template names: {@code DEDUP_URL}, and {@code DEDUP_TOKEN} when the agent has a token
 * ({@link DedupClient#fromEnvironment()}). Tests that play several nodes in one JVM name each agent by its URI.
 *
 * <p>No Spark here: this is the part of {@link ClaimPartition} that finds the agent, which a process without Spark
 * can run as the executor would.
 */
public final class ExecutorAgent {

    /** The agent of the executor's environment, in place of a URI. */
    public static final String FROM_ENVIRONMENT = "";

    private static final Map<String, DedupClient> CLIENTS = new ConcurrentHashMap<>();

    private ExecutorAgent() {}

    /**
     * The client of {@code agent} ({@code http://host:port}), or of the environment's agent for {@link
     * #FROM_ENVIRONMENT}.
     *
     * @throws IllegalArgumentException when the URI, {@code DEDUP_URL} or {@code DEDUP_TOKEN} is not valid
     */
    public static DedupClient client(String agent) {
        return CLIENTS.computeIfAbsent(
                agent, a -> a.isEmpty() ? DedupClient.fromEnvironment() : DedupClient.create(URI.create(a)));
    }
}
