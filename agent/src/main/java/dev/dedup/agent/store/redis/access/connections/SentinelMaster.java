package dev.dedup.agent.store.redis.access.connections;

import dev.dedup.agent.config.RedisOptions;
import dev.dedup.agent.store.FailureKind;
import dev.dedup.agent.store.redis.access.RedisFailures;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisConnectionException;
import io.lettuce.core.RedisURI;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.sentinel.api.StatefulRedisSentinelConnection;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import reactor.core.publisher.Mono;

/**
 * Where a Sentinel-managed shard's primary is: every sentinel of the shard's {@code redis-sentinel://} (or
 * {@code rediss-sentinel://}) URI is asked at once ({@code SENTINEL MASTER <name>}), and of those that answer, the one
 * with the greatest configuration epoch is believed. Sentinels converge on the newest configuration, but one cut off
 * from a failover names the old primary, under the old epoch, until it hears of the new one; the first sentinel to
 * answer, which is what Lettuce's own lookup takes, may be that one.
 *
 * <p>The sentinels are logged in to with the URI's user and password, the same as the primary (Lettuce gives a
 * sentinel no credentials of the URI's): a sentinel that names the primary must be one that knows the agent's user,
 * not whoever answers on its address. With {@code rediss-sentinel://} both speak TLS and have their host names
 * checked against their certificates.
 *
 * <p>One connection per sentinel, made when first needed and kept (a sentinel that could not be reached is tried
 * again at the next question).
 */
final class SentinelMaster implements AutoCloseable {

    /** One sentinel's answer. */
    record View(InetSocketAddress primary, long epoch) {

        /** The reply of {@code SENTINEL MASTER}: a map with {@code ip}, {@code port}, {@code config-epoch}. */
        static View of(Map<String, String> reply) {
            String epoch = reply.getOrDefault("config-epoch", "0");
            return new View(
                    new InetSocketAddress(reply.get("ip"), Integer.parseInt(reply.get("port"))), Long.parseLong(epoch));
        }

        /** The view with the greatest epoch; on a tie, the earliest in the list (the order the URI names them). */
        static Optional<View> newest(List<View> views) {
            View best = null;
            for (View v : views) {
                if (best == null || v.epoch() > best.epoch()) {
                    best = v;
                }
            }
            return Optional.ofNullable(best);
        }
    }

    private final String masterId;
    private final String name;
    /** The shard's URI as written: what a failure's message is scrubbed of. */
    private final String written;

    private final List<RedisURI> sentinels;
    private final Duration timeout;
    private final RedisClient client;
    private final Map<RedisURI, CompletableFuture<StatefulRedisSentinelConnection<String, String>>> connections =
            new ConcurrentHashMap<>();

    /**
     * For the shard {@code uri} (parsed from {@code written}, a {@code redis-sentinel://} URI), named {@code name} in
     * messages; questions and connections to a sentinel take {@code timeout} at most.
     */
    SentinelMaster(
            RedisURI uri,
            String written,
            String name,
            ClientResources resources,
            ClientOptions options,
            Duration timeout) {
        this.masterId = uri.getSentinelMasterId();
        this.name = name;
        this.written = written;
        List<RedisURI> logins = new ArrayList<>();
        for (RedisURI sentinel : uri.getSentinels()) {
            RedisURI login = RedisURI.builder(sentinel).build();
            login.applyAuthentication(uri);
            login.setTimeout(timeout);
            logins.add(login);
        }
        this.sentinels = List.copyOf(logins);
        this.timeout = timeout;
        this.client = RedisClient.create(resources);
        client.setOptions(options);
    }

    /** Whether {@code uri} names its primary through sentinels. */
    static boolean managed(RedisURI uri) {
        return uri.getSentinelMasterId() != null && !uri.getSentinels().isEmpty();
    }

    /**
     * The primary the newest configuration names, once more than half of the sentinels have answered or every one
     * has answered or failed; fails when none answers within the timeout. Waiting for a majority rather than for all
     * does not wait out the timeout of a sentinel cut off from the rest.
     */
    CompletableFuture<InetSocketAddress> primary() {
        CompletableFuture<InetSocketAddress> result = new CompletableFuture<>();
        List<View> views = new ArrayList<>();
        List<String> reasons = new ArrayList<>();
        int[] settled = {0};
        for (RedisURI sentinel : sentinels) {
            ask(sentinel).whenComplete((view, failure) -> {
                synchronized (views) {
                    if (failure == null) {
                        views.add(view);
                    } else {
                        reasons.add(sentinel.getHost() + ":" + sentinel.getPort() + ": " + reason(failure));
                    }
                    settled[0]++;
                    if (views.size() > sentinels.size() / 2 || settled[0] == sentinels.size()) {
                        View.newest(views)
                                .ifPresentOrElse(
                                        v -> result.complete(v.primary()),
                                        () -> result.completeExceptionally(new RedisConnectionException(
                                                "redis shard " + name + ": none of its " + sentinels.size()
                                                        + " sentinels named a primary for " + masterId + " within "
                                                        + timeout.toMillis() + " ms (" + String.join("; ", reasons)
                                                        + ")")));
                    }
                }
            });
        }
        return result;
    }

    /**
     * Why a sentinel gave no answer, in one line without the password: a refused login says which credentials the
     * agent sent, since a sentinel that knows no such user refuses the very URI that the primary takes.
     */
    private String reason(Throwable failure) {
        Throwable t = RedisFailures.unwrap(failure);
        if (t instanceof TimeoutException) {
            return "no answer";
        }
        String message = RedisOptions.scrub(RedisFailures.rootMessage(t), written);
        RedisFailures.ReplyCode code = RedisFailures.ReplyCode.of(rootOf(t));
        if (code.kind() == FailureKind.AUTH) {
            return message + "; the agent logs in to the sentinels with the URI's user and password, as to the"
                    + " primary";
        }
        return message;
    }

    private static String rootOf(Throwable t) {
        Throwable root = t;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        return String.valueOf(root.getMessage());
    }

    /** {@link #primary()} as Lettuce's address lookups take it. */
    Mono<SocketAddress> lookup() {
        return Mono.fromFuture(this::primary).map(SocketAddress.class::cast);
    }

    /** One sentinel's view; fails when it does not answer in time, refuses the login or does not know the master. */
    private CompletableFuture<View> ask(RedisURI sentinel) {
        return connection(sentinel)
                .thenCompose(c -> c.async().master(masterId))
                .thenApply(View::of)
                .orTimeout(timeout.toMillis(), TimeUnit.MILLISECONDS);
    }

    private CompletableFuture<StatefulRedisSentinelConnection<String, String>> connection(RedisURI sentinel) {
        return connections.compute(sentinel, (s, c) -> {
            if (c != null && !c.isCompletedExceptionally()) {
                return c;
            }
            return client.connectSentinelAsync(StringCodec.UTF8, s);
        });
    }

    @Override
    public void close() {
        connections
                .values()
                .forEach(c -> c.thenAccept(connection ->
                        Connections.closeWithin(connection, "redis shard " + name + ": sentinel connection")));
        client.shutdown(0, Connections.CLOSE_SECONDS, TimeUnit.SECONDS);
    }

    /**
     * A Lettuce client whose connections to the shard, made and remade, go to the primary {@link #primary()} names
     * (Lettuce documents this method as the one to override for that).
     */
    static final class Client extends AsyncRedisClient {
        private final SentinelMaster master;

        Client(ClientResources resources, RedisURI uri, SentinelMaster master) {
            super(resources, uri);
            this.master = master;
        }

        @Override
        protected Mono<SocketAddress> getSocketAddress(RedisURI uri) {
            return managed(uri) ? master.lookup() : super.getSocketAddress(uri);
        }
    }
}
