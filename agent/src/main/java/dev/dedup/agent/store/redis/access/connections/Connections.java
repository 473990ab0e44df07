package dev.dedup.agent.store.redis.access.connections;

import dev.dedup.agent.config.RedisOptions;
import dev.dedup.agent.store.redis.access.RedisFailures;
import dev.dedup.agent.store.redis.access.RedisPort.Script;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.SocketOptions;
import io.lettuce.core.SslOptions;
import io.lettuce.core.TimeoutOptions;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.api.async.RedisScriptingAsyncCommands;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.DefaultClientResources;
import io.lettuce.core.resource.Delay;
import io.netty.channel.EventLoopGroup;
import java.lang.System.Logger.Level;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * What every Lettuce client and connection of the tier shares, whichever {@link LettuceRedis.Nodes} holds it: the
 * options it is built with, the scripts it loads, and how long closing it may take.
 */
final class Connections {

    private static final System.Logger LOG = System.getLogger(Connections.class.getName());
    /** How long closing one connection may take before shutdown goes on without it. */
    static final long CLOSE_SECONDS = 2;

    private Connections() {}

    /**
     * {@code SCRIPT LOAD} of each script through {@code cache}, then a trivial {@code EVAL}: a server that lost the
     * scripts (restarted, failed over, flushed) is sent them whole with {@code EVAL}, so a server that refuses it
     * (an ACL without {@code +eval}) is refused at the start rather than at its first restart.
     */
    static void load(RedisScriptingAsyncCommands<byte[], byte[]> cache, List<Script> scripts) {
        for (Script script : scripts) {
            RedisFailures.await(cache.scriptLoad(script.body()));
        }
        RedisFailures.await(cache.<Long>eval("return 1", ScriptOutputType.INTEGER));
    }

    /**
     * What every connection sets: reconnect, but refuse commands while disconnected (a batch is answered 503
     * rather than queued past its timeout), at most {@code redis-max-in-flight} commands queued, the timeout on
     * every command and on connecting, TCP keep-alive, and TLS trusting {@code redis-ca-file} for {@code rediss://}.
     */
    static void commonOptions(ClientOptions.Builder builder, RedisOptions options) {
        builder.autoReconnect(true)
                .disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS)
                .requestQueueSize(options.maxInFlight())
                .timeoutOptions(TimeoutOptions.enabled(options.timeout()))
                .socketOptions(SocketOptions.builder()
                        .connectTimeout(options.timeout())
                        .keepAlive(true)
                        .build())
                .sslOptions(sslOptions(options));
    }

    /**
     * Reconnect attempts back off from 10 ms to at most 1 s, not Lettuce's default 30 s, so that a server back from
     * a restart or a partition is served again within a second rather than after up to half a minute of 503s; an
     * attempt a second per server and agent costs a server nothing. The connections go on {@code ioLoops} when
     * given ({@link SharedEventLoops}).
     */
    static ClientResources clientResources(EventLoopGroup ioLoops) {
        DefaultClientResources.Builder builder = DefaultClientResources.builder()
                .reconnectDelay(
                        Delay.exponential(Duration.ofMillis(10), Duration.ofSeconds(1), 2, TimeUnit.MILLISECONDS));
        if (ioLoops != null) {
            builder.eventLoopGroupProvider(new SharedEventLoops(ioLoops));
        }
        return builder.build();
    }

    static SslOptions sslOptions(RedisOptions options) {
        if (options.caFile() == null) {
            return SslOptions.create();
        }
        return SslOptions.builder()
                .jdkSslProvider()
                .trustManager(options.caFile().toFile())
                .build();
    }

    /**
     * Closes {@code connection}, waiting {@value #CLOSE_SECONDS} seconds at most: a close once waited
     * forever on a connection whose shard was stopped at the same moment, which left SIGTERM to a SIGKILL.
     */
    static void closeWithin(StatefulConnection<?, ?> connection, String what) {
        try {
            connection.closeAsync().get(CLOSE_SECONDS, TimeUnit.SECONDS);
        } catch (TimeoutException | ExecutionException e) {
            LOG.log(
                    Level.WARNING,
                    what + " did not close within " + CLOSE_SECONDS + " s (" + e + "); shutting down anyway");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
