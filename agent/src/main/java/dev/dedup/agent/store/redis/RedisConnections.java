package dev.dedup.agent.store.redis;

import io.lettuce.core.api.StatefulConnection;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/** Closing Lettuce connections without letting one of them hold up the agent's shutdown. */
public final class RedisConnections {

    /** How long a close may take before shutdown goes on without it. */
    static final long CLOSE_SECONDS = 2;

    private RedisConnections() {
    }

    /**
     * Closes {@code connection}, waiting {@value #CLOSE_SECONDS} seconds at most: a close once waited
     * forever on a connection whose shard was stopped at the same moment (seen once, in a benchmark run;
     * not reproduced in a test), which left SIGTERM to a SIGKILL.
     */
    public static void closeWithin(StatefulConnection<?, ?> connection, String what) {
        try {
            connection.closeAsync().get(CLOSE_SECONDS, TimeUnit.SECONDS);
        } catch (TimeoutException | ExecutionException e) {
            System.getLogger(RedisConnections.class.getName()).log(System.Logger.Level.WARNING,
                    what + " did not close within " + CLOSE_SECONDS + " s (" + e + "); shutting down anyway");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
