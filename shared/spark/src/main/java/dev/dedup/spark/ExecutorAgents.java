package dev.dedup.spark;

import dev.dedup.client.DedupClient;
import java.net.URI;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The agents of this executor JVM, one client each, kept between tasks: a client holds a connection pool, and an
 * executor runs thousands of tasks. The executor's own agent is the one its pod template names ({@code DEDUP_URL},
 * and {@code DEDUP_TOKEN} when the agent has a token); an agent named by URI takes the token given with it.
 */
final class ExecutorAgents {

    private static final Map<String, DedupClient> CLIENTS = new ConcurrentHashMap<>();

    private ExecutorAgents() {}

    /**
     * @param agent an {@code http://host:port} URI, or null for the agent of this process's environment
     * @param token the agent's token for a URI ({@code null}: none), ignored for the environment's agent
     * @throws IllegalArgumentException when the URI, {@code DEDUP_URL} or {@code DEDUP_TOKEN} is not valid
     */
    static DedupClient client(String agent, String token) {
        String key = (agent == null ? "" : agent) + "\n" + (token == null ? "" : token);
        return CLIENTS.computeIfAbsent(key, k -> {
            if (agent == null) {
                return DedupClient.fromEnvironment();
            }
            DedupClient.Builder b = DedupClient.builder(URI.create(agent));
            if (token != null) {
                b.token(token);
            }
            return b.build();
        });
    }
}
