package dev.dedup.agent.http;

import dev.dedup.agent.metrics.AgentMetrics;
import io.vertx.core.http.HttpConnection;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * How many connections the agent holds open at once, over every event loop and both ports: each costs a socket
 * and its buffers, and a client that opens them without end would take the process's file descriptors. A connection
 * past the cap is closed as soon as it is accepted, before it is read, and counted
 * ({@code dedup_http_connections_refused_total}); the client sees its connection closed and connects again later,
 * as after any dropped connection.
 */
public final class ConnectionCap {

    private final int max;
    private final AtomicInteger open = new AtomicInteger();

    public ConnectionCap(int max) {
        this.max = max;
    }

    /** A server's connection handler: counts the connection while it is open, or closes it past the cap. */
    void handle(HttpConnection connection, AgentMetrics metrics) {
        connection.closeHandler(closed -> open.decrementAndGet());
        if (open.incrementAndGet() > max) {
            metrics.connectionRefused();
            connection.close();
        }
    }
}
