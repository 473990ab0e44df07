package dev.dedup.agent.store.redis.access.connections;

import dev.dedup.agent.store.redis.access.RedisPort;
import java.lang.System.Logger.Level;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;

/**
 * A channel subscribed on {@code all} connections, each counted while it is subscribed ({@link ChannelState}):
 * after every change, {@code listening} is told whether all of them are. The count and the call share one lock,
 * so the calls come in the order of the changes and the last one always says how the channel stands, even when a
 * connection moved to a new primary is subscribed before the old one is seen to drop.
 */
final class ChannelSubscription implements RedisPort.Subscription {

    private static final System.Logger LOG = System.getLogger(ChannelSubscription.class.getName());

    private final List<AutoCloseable> connections = new CopyOnWriteArrayList<>();
    private final Consumer<Boolean> listening;
    private final int all;
    private int subscribed;

    ChannelSubscription(int all, Consumer<Boolean> listening) {
        this.all = all;
        this.listening = listening;
    }

    /** A connection to close with the subscription. */
    void add(AutoCloseable connection) {
        connections.add(connection);
    }

    /** One connection was subscribed ({@code +1}) or dropped ({@code -1}); {@code tell}: whether to say so. */
    synchronized void changed(int delta, boolean tell) {
        subscribed += delta;
        if (tell) {
            listening.accept(subscribed == all);
        }
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
