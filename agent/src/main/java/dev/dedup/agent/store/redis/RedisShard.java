package dev.dedup.agent.store.redis;

import dev.dedup.agent.config.RedisOptions;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.SocketOptions;
import io.lettuce.core.SslOptions;
import io.lettuce.core.TimeoutOptions;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.async.RedisAsyncCommands;
import io.lettuce.core.codec.ByteArrayCodec;
import io.lettuce.core.resource.ClientResources;
import java.lang.System.Logger.Level;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;

/**
 * One Redis shard: a Lettuce client and its one multiplexed connection. Commands fail at once while the
 * connection is down (no buffering that would answer a worker late) and after {@code timeout}; Lettuce
 * reconnects in the background, so a shard that comes back serves again without a restart.
 */
final class RedisShard implements AutoCloseable {

    private static final System.Logger LOG = System.getLogger(RedisShard.class.getName());

    private final int index;
    private final String name;
    private final RedisClient client;
    private final StatefulRedisConnection<byte[], byte[]> connection;

    private RedisShard(int index, String name, RedisClient client, StatefulRedisConnection<byte[], byte[]> connection) {
        this.index = index;
        this.name = name;
        this.client = client;
        this.connection = connection;
    }

    /** Connects, or fails with a message naming the shard. */
    static RedisShard connect(int index, String uri, RedisOptions options, ClientResources resources) {
        String name = RedisOptions.redact(uri);
        RedisURI redisUri;
        try {
            redisUri = RedisURI.create(uri);
        } catch (RuntimeException e) {
            throw new IllegalStateException("redis shard " + name + ": not a Redis URI: " + e.getMessage(), e);
        }
        redisUri.setTimeout(options.timeout());
        RedisClient client = RedisClient.create(resources, redisUri);
        client.setOptions(ClientOptions.builder()
                .autoReconnect(true)
                .disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS)
                .requestQueueSize(options.maxInFlight())
                .timeoutOptions(TimeoutOptions.enabled(options.timeout()))
                .socketOptions(SocketOptions.builder().connectTimeout(options.timeout()).keepAlive(true).build())
                .sslOptions(sslOptions(options))
                .build());
        try {
            return new RedisShard(index, name, client, client.connect(ByteArrayCodec.INSTANCE));
        } catch (RuntimeException e) {
            client.shutdown(0, 2, TimeUnit.SECONDS);
            throw new IllegalStateException("redis shard " + name + ": cannot connect: " + rootMessage(e), e);
        }
    }

    /** Trust the CA file's certificates when one is given; else the JVM's default trust store. */
    private static SslOptions sslOptions(RedisOptions options) {
        if (options.caFile() == null) {
            return SslOptions.create();
        }
        return SslOptions.builder().jdkSslProvider().trustManager(options.caFile().toFile()).build();
    }

    int index() {
        return index;
    }

    String name() {
        return name;
    }

    RedisClient client() {
        return client;
    }

    RedisAsyncCommands<byte[], byte[]> async() {
        return connection.async();
    }

    boolean connected() {
        return connection.isOpen();
    }

    CompletionStage<String> ping() {
        return connection.async().ping();
    }

    /**
     * Reads the settings the store depends on and warns about the dangerous ones. Returns the server's
     * {@code hash-max-listpack-entries}, or -1 when CONFIG is not allowed (managed services rename it).
     */
    int inspect() {
        try {
            Map<String, String> config = config("maxmemory-policy", "hash-max-listpack-entries");
            String policy = config.get("maxmemory-policy");
            if (policy != null && !policy.equals("noeviction")) {
                LOG.log(Level.WARNING, "redis shard " + name + " has maxmemory-policy " + policy
                        + ": Redis may evict claims, which turns duplicates into new. Set maxmemory-policy noeviction.");
            }
            String entries = config.get("hash-max-listpack-entries");
            return entries == null ? -1 : Integer.parseInt(entries);
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "redis shard " + name + ": cannot read its configuration (" + rootMessage(e)
                    + "); make sure maxmemory-policy is noeviction");
            return -1;
        }
    }

    private Map<String, String> config(String... names) {
        return connection.sync().configGet(names);
    }

    Map<String, Object> stats() {
        Map<String, Object> s = new LinkedHashMap<>();
        s.put("shard", index);
        s.put("uri", name);
        s.put("connected", connected());
        return s;
    }

    @Override
    public void close() {
        RedisConnections.closeWithin(connection, "redis shard " + name + ": connection");
        client.shutdown(0, 2, TimeUnit.SECONDS);
    }

    static String rootMessage(Throwable t) {
        Throwable root = t;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        return root == t ? String.valueOf(t.getMessage()) : t.getMessage() + " (" + root.getMessage() + ")";
    }

    static List<String> names(List<RedisShard> shards) {
        return shards.stream().map(RedisShard::name).toList();
    }
}
