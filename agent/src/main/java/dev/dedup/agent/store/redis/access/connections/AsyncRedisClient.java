package dev.dedup.agent.store.redis.access.connections;

import dev.dedup.agent.store.redis.access.RedisFailures;
import io.lettuce.core.RedisChannelWriter;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.StatefulRedisConnectionImpl;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.codec.RedisCodec;
import io.lettuce.core.protocol.PushHandler;
import io.lettuce.core.pubsub.PubSubEndpoint;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnectionImpl;
import io.lettuce.core.pubsub.api.sync.RedisPubSubCommands;
import io.lettuce.core.resource.ClientResources;
import java.time.Duration;

/**
 * A {@link RedisClient} whose connections have no synchronous API: their {@code sync()} is null. Lettuce builds
 * the synchronous API of every connection as it opens it, a reflective proxy whose class is generated and whose
 * method table is built on first use; that is a quarter of the agent's start-up on the main thread, for an API
 * the agent never calls (it awaits the asynchronous one, {@link RedisFailures#await}). Lettuce documents both
 * factory methods overridden here as points of extension.
 */
class AsyncRedisClient extends RedisClient {

    AsyncRedisClient(ClientResources resources, RedisURI uri) {
        super(resources, uri);
    }

    @Override
    protected <K, V> StatefulRedisConnectionImpl<K, V> newStatefulRedisConnection(
            RedisChannelWriter channelWriter, PushHandler pushHandler, RedisCodec<K, V> codec, Duration timeout) {
        return new StatefulRedisConnectionImpl<>(
                channelWriter, pushHandler, codec, timeout, getOptions().getJsonParser()) {
            @Override
            protected RedisCommands<K, V> newRedisSyncCommandsImpl() {
                return null;
            }
        };
    }

    @Override
    protected <K, V> StatefulRedisPubSubConnectionImpl<K, V> newStatefulRedisPubSubConnection(
            PubSubEndpoint<K, V> endpoint, RedisChannelWriter channelWriter, RedisCodec<K, V> codec, Duration timeout) {
        return new StatefulRedisPubSubConnectionImpl<>(endpoint, channelWriter, codec, timeout) {
            @Override
            protected RedisPubSubCommands<K, V> newRedisSyncCommandsImpl() {
                return null;
            }
        };
    }
}
