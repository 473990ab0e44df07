package dev.dedup.agent.nearcache;

import dev.dedup.agent.store.redis.RedisConnections;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisConnectionStateListener;
import io.lettuce.core.codec.ByteArrayCodec;
import io.lettuce.core.pubsub.RedisPubSubAdapter;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import java.lang.System.Logger.Level;
import java.net.SocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Listens on every shard's release channel and drops released ids from the {@link NearCache}. A channel
 * that is not subscribed makes the cache unusable, and losing one clears the cache: a release published
 * while we did not listen must not leave a stale entry behind.
 */
public final class ReleaseSubscriber implements AutoCloseable {

    private static final System.Logger LOG = System.getLogger(ReleaseSubscriber.class.getName());

    private static final int FIELD_BYTES = 7;

    private final NearCache cache;
    private final List<StatefulRedisPubSubConnection<byte[], byte[]>> connections = new ArrayList<>();
    private final AtomicInteger subscribed = new AtomicInteger();
    private final int shards;

    public ReleaseSubscriber(NearCache cache, List<RedisClient> clients, byte[] channel) {
        this.cache = cache;
        this.shards = clients.size();
        for (RedisClient client : clients) {
            StatefulRedisPubSubConnection<byte[], byte[]> c = client.connectPubSub(ByteArrayCodec.INSTANCE);
            boolean[] up = {false};
            c.addListener(new RedisPubSubAdapter<>() {
                @Override
                public void message(byte[] ch, byte[] payload) {
                    for (int off = 0; off + FIELD_BYTES <= payload.length; off += FIELD_BYTES) {
                        cache.invalidateField(fieldAt(payload, off));
                    }
                }

                @Override
                public void subscribed(byte[] ch, long count) {
                    synchronized (up) {
                        if (!up[0]) {
                            // Again, for entries a claim in flight put after the clear on disconnect.
                            cache.invalidateAll();
                            up[0] = true;
                            subscribed.incrementAndGet();
                        }
                    }
                }
            });
            c.addListener(new RedisConnectionStateListener() {
                @Override
                public void onRedisDisconnected(io.lettuce.core.RedisChannelHandler<?, ?> connection) {
                    synchronized (up) {
                        if (up[0]) {
                            up[0] = false;
                            subscribed.decrementAndGet();
                        }
                    }
                    cache.invalidateAll();
                    LOG.log(Level.WARNING, "release channel lost; near-cache cleared and bypassed until it is back");
                }

                @Override
                public void onRedisConnected(io.lettuce.core.RedisChannelHandler<?, ?> connection, SocketAddress addr) {
                    // Lettuce subscribes again by itself; subscribed() marks the channel usable.
                }
            });
            c.sync().subscribe(channel);
            connections.add(c);
        }
    }

    /** True while every shard's release channel is subscribed. */
    public boolean listening() {
        return subscribed.get() == shards;
    }

    /** A released id's field: the top 56 bits of its key, 7 bytes big-endian. */
    private static long fieldAt(byte[] bytes, int off) {
        long f = 0;
        for (int i = 0; i < FIELD_BYTES; i++) {
            f = (f << 8) | (bytes[off + i] & 0xff);
        }
        return f;
    }

    /** Closes every subscription, each within {@link RedisConnections#closeWithin}'s bound. */
    @Override
    public void close() {
        connections.forEach(c -> RedisConnections.closeWithin(c, "release channel subscription"));
    }
}
