package dev.dedup.agent.store.redis.access.connections;

import io.lettuce.core.RedisChannelHandler;
import io.lettuce.core.RedisConnectionStateListener;
import io.lettuce.core.pubsub.RedisPubSubAdapter;
import java.net.SocketAddress;
import java.util.function.Consumer;

/** One subscribed channel on one connection: counted in its {@link ChannelSubscription} while it is up. */
final class ChannelState extends RedisPubSubAdapter<byte[], byte[]> implements RedisConnectionStateListener {
    private final ChannelSubscription subscription;
    private final Consumer<byte[]> onMessage;
    private boolean up;
    private volatile boolean closed;

    ChannelState(ChannelSubscription subscription, Consumer<byte[]> onMessage) {
        this.subscription = subscription;
        this.onMessage = onMessage;
    }

    @Override
    public void message(byte[] channel, byte[] payload) {
        onMessage.accept(payload);
    }

    @Override
    public synchronized void subscribed(byte[] channel, long count) {
        if (!up) {
            up = true;
            subscription.changed(+1, true);
        }
    }

    @Override
    public synchronized void onRedisDisconnected(RedisChannelHandler<?, ?> connection) {
        if (up) {
            up = false;
            subscription.changed(-1, !closed);
        }
    }

    /** From now on a dropped connection is the subscription's own close, not a loss. */
    void close() {
        closed = true;
    }

    @Override
    public void onRedisConnected(RedisChannelHandler<?, ?> connection, SocketAddress address) {
        // Lettuce subscribes again by itself; subscribed() counts the channel when it is.
    }
}
