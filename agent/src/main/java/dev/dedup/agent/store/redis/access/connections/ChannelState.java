package dev.dedup.agent.store.redis.access.connections;

import io.lettuce.core.RedisChannelHandler;
import io.lettuce.core.RedisConnectionStateListener;
import io.lettuce.core.pubsub.RedisPubSubAdapter;
import java.net.SocketAddress;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

/** One subscribed channel on one connection: counted in {@code subscribed} while it is up. */
final class ChannelState extends RedisPubSubAdapter<byte[], byte[]> implements RedisConnectionStateListener {
    private final AtomicInteger subscribed;
    private final Consumer<byte[]> onMessage;
    private final Runnable onLost;
    private final Runnable onBack;
    private boolean up;
    private volatile boolean closed;

    ChannelState(AtomicInteger subscribed, Consumer<byte[]> onMessage, Runnable onLost, Runnable onBack) {
        this.subscribed = subscribed;
        this.onMessage = onMessage;
        this.onLost = onLost;
        this.onBack = onBack;
    }

    @Override
    public void message(byte[] channel, byte[] payload) {
        onMessage.accept(payload);
    }

    @Override
    public synchronized void subscribed(byte[] channel, long count) {
        if (!up) {
            onBack.run();
            up = true;
            subscribed.incrementAndGet();
        }
    }

    @Override
    public void onRedisDisconnected(RedisChannelHandler<?, ?> connection) {
        synchronized (this) {
            if (up) {
                up = false;
                subscribed.decrementAndGet();
            }
        }
        if (!closed) {
            onLost.run();
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
