package dev.dedup.agent.store.redis.access.connections;

import dev.dedup.agent.store.redis.access.RedisPort;
import java.lang.System.Logger.Level;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/** A channel subscribed on {@code all} connections: listening while each of them is subscribed. */
final class ChannelSubscription implements RedisPort.Subscription {

    private static final System.Logger LOG = System.getLogger(ChannelSubscription.class.getName());

    private final List<AutoCloseable> connections;
    private final AtomicInteger subscribed;
    private final int all;

    ChannelSubscription(List<AutoCloseable> connections, AtomicInteger subscribed, int all) {
        this.connections = List.copyOf(connections);
        this.subscribed = subscribed;
        this.all = all;
    }

    @Override
    public boolean listening() {
        return subscribed.get() == all;
    }

    @Override
    public void close() {
        connections.forEach(ChannelSubscription::closeQuietly);
    }

    static void closeQuietly(AutoCloseable c) {
        try {
            c.close();
        } catch (Exception e) {
            LOG.log(Level.WARNING, "release channel subscription did not close: " + e);
        }
    }
}
