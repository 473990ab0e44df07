package dev.dedup.agent;

import dev.dedup.agent.claims.ClaimService;
import dev.dedup.agent.config.AgentOptions;
import dev.dedup.agent.config.HttpOptions;
import dev.dedup.agent.config.OpsOptions;
import dev.dedup.agent.config.value.ConfigException;
import dev.dedup.agent.config.value.Durations;
import dev.dedup.agent.http.BodyBudget;
import dev.dedup.agent.http.ConnectionCap;
import dev.dedup.agent.http.Credentials;
import dev.dedup.agent.http.HttpVerticle;
import dev.dedup.agent.http.ServerCertificate;
import dev.dedup.agent.metrics.AgentMetrics;
import dev.dedup.agent.metrics.BuildInfo;
import dev.dedup.agent.metrics.MetricNames;
import dev.dedup.agent.nearcache.NearCache;
import dev.dedup.agent.nearcache.NearCachedStore;
import dev.dedup.agent.ranges.RangeService;
import dev.dedup.agent.store.ClaimStore;
import dev.dedup.agent.store.RangeStore;
import dev.dedup.agent.store.ReleaseFeed;
import dev.dedup.agent.store.embedded.EmbeddedStore;
import dev.dedup.agent.store.redis.RedisStore;
import dev.dedup.agent.store.redis.access.Housekeeping;
import io.micrometer.core.instrument.Gauge;
import io.netty.channel.EventLoopGroup;
import io.vertx.core.DeploymentOptions;
import io.vertx.core.Future;
import io.vertx.core.ThreadingModel;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import io.vertx.core.internal.VertxInternal;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.LongSupplier;

/**
 * A running agent: the store, the claim service, metrics and the HTTP servers, wired together.
 * {@link #start} returns once it listens; {@link #close} drains requests in flight, then flushes and
 * closes the store.
 */
public final class Agent implements AutoCloseable {

    private static final System.Logger LOG = System.getLogger(Agent.class.getName());

    private final AgentOptions options;
    private final Vertx vertx;
    /** The HTTP servers' deployment. */
    private final String servers;

    private final ClaimStore store;
    private final AgentMetrics metrics;
    private final int port;
    private boolean closed;

    private Agent(AgentOptions options, Vertx vertx, String servers, ClaimStore store, AgentMetrics metrics, int port) {
        this.options = options;
        this.vertx = vertx;
        this.servers = servers;
        this.store = store;
        this.metrics = metrics;
        this.port = port;
    }

    /** Starts with the wall clock. */
    public static Agent start(AgentOptions options) {
        return start(options, System::currentTimeMillis);
    }

    /** Starts with the given clock of epoch milliseconds (tests pass a fake one). */
    public static Agent start(AgentOptions requested, LongSupplier clockMillis) {
        // Every server instance must ask for the same port to share it: with port 0, choose one now.
        HttpOptions http = requested.http();
        if (http.port() == 0) {
            http = http.toBuilder().port(freePort(http.host())).build();
        }
        if (http.ops() != null && http.ops().port() == 0) {
            http = http.toBuilder()
                    .ops(new OpsOptions(http.ops().host(), freePort(http.ops().host())))
                    .build();
        }
        AgentOptions options = http == requested.http()
                ? requested
                : requested.toBuilder().http(http).build();
        AgentMetrics metrics = new AgentMetrics();
        // First the event loops: the Redis client's connections share them with the HTTP servers.
        Vertx vertx = Vertx.vertx(
                new VertxOptions().setEventLoopPoolSize(options.http().eventLoops()));
        ServerCertificate certificate;
        Stores stores;
        try {
            certificate = ServerCertificate.of(options.http(), vertx);
            stores = openStore(options, clockMillis, metrics, ((VertxInternal) vertx).nettyEventLoopGroup());
        } catch (RuntimeException e) {
            closeWithin(vertx, 5000);
            metrics.close();
            throw e;
        }
        ClaimStore store = stores.claims();
        try {
            ClaimService claims = new ClaimService(store, options.windows(), metrics);
            RangeService ranges = new RangeService(stores.ranges(), options.windows(), metrics, claims.namespaces());
            AtomicInteger boundPort = new AtomicInteger();
            BodyBudget bodies = BodyBudget.ofHeap(options.http().maxBody());
            ConnectionCap connections = new ConnectionCap(options.http().maxConnections());
            Credentials credentials = new Credentials(options.http());
            List<HttpVerticle> verticles = new CopyOnWriteArrayList<>();
            String servers = vertx.deployVerticle(
                            () -> {
                                HttpVerticle verticle = new HttpVerticle(
                                        options.http(),
                                        claims,
                                        ranges,
                                        metrics,
                                        boundPort,
                                        bodies,
                                        connections,
                                        credentials,
                                        certificate);
                                verticles.add(verticle);
                                return verticle;
                            },
                            new DeploymentOptions()
                                    .setInstances(options.http().eventLoops())
                                    .setThreadingModel(ThreadingModel.EVENT_LOOP))
                    .toCompletionStage()
                    .toCompletableFuture()
                    .get(30, TimeUnit.SECONDS);
            Agent agent = new Agent(options, vertx, servers, store, metrics, boundPort.get());
            watchTokenFiles(vertx, options.http(), credentials, metrics);
            watchCertificate(vertx, certificate, verticles, metrics);
            LOG.log(
                    System.Logger.Level.INFO,
                    BuildInfo.current().line() + " listening on "
                            + options.http().scheme() + "://"
                            + options.http().host() + ":" + agent.port
                            + (options.http().ops() == null
                                    ? ""
                                    : ", operations also on " + options.http().scheme() + "://"
                                            + options.http().ops().host() + ":"
                                            + options.http().ops().port())
                            + " (store " + store.kind() + ": " + describe(options, stores) + ")"
                            + sinceJvmStart());
            metrics.bindProcessMeters();
            if (stores.ranges() instanceof EmbeddedStore embedded) {
                String copyOnWrite = embedded.copyOnWriteWarning();
                if (copyOnWrite != null) {
                    LOG.log(System.Logger.Level.WARNING, "embedded store: " + copyOnWrite);
                }
                String notAdvised = embedded.adviseRandomAccess();
                if (notAdvised != null) {
                    LOG.log(
                            System.Logger.Level.INFO,
                            "embedded store: a claim that misses a page of the slot file reads the device's read-ahead"
                                    + " around it (" + notAdvised
                                    + "); under a memory limit, count the file's size in it");
                }
            }
            return agent;
        } catch (Exception e) {
            store.close();
            closeWithin(vertx, 5000);
            metrics.close();
            Throwable cause =
                    e instanceof java.util.concurrent.ExecutionException && e.getCause() != null ? e.getCause() : e;
            throw new IllegalStateException(
                    "cannot listen on " + options.http().host() + ":"
                            + options.http().port()
                            + (options.http().ops() == null
                                    ? ""
                                    : " and " + options.http().ops().host() + ":"
                                            + options.http().ops().port())
                            + ": " + cause.getMessage(),
                    cause);
        }
    }

    /**
     * Re-reads the token files every {@link HttpOptions#TOKEN_FILE_CHECK}, off the event loops: a change is applied
     * and logged (how many tokens, never which); a file that is unreadable or holds a refused token is not applied,
     * counted, and logged once until it changes again.
     */
    private static void watchTokenFiles(Vertx vertx, HttpOptions http, Credentials credentials, AgentMetrics metrics) {
        if (http.tokenFile() == null && http.readTokenFile() == null) {
            return;
        }
        AtomicReference<String> lastRefusal = new AtomicReference<>();
        vertx.setPeriodic(
                HttpOptions.TOKEN_FILE_CHECK.toMillis(),
                id -> vertx.executeBlocking(
                        () -> {
                            try {
                                String changed = credentials.reload();
                                lastRefusal.set(null);
                                if (changed != null) {
                                    metrics.tokenFileReloaded(true);
                                    LOG.log(System.Logger.Level.INFO, "token files read again: " + changed);
                                }
                            } catch (ConfigException e) {
                                if (!e.getMessage().equals(lastRefusal.getAndSet(e.getMessage()))) {
                                    metrics.tokenFileReloaded(false);
                                    LOG.log(
                                            System.Logger.Level.WARNING,
                                            "token files not applied, the tokens before stay: " + e.getMessage());
                                }
                            }
                            return null;
                        },
                        true)); // ordered: a slow read never lands after a newer one
    }

    /**
     * Re-reads the certificate and key every {@link HttpOptions#TOKEN_FILE_CHECK}, off the event loops, and hands a
     * changed pair to every server: applied and logged, or refused by a server (a key that does not match the
     * certificate, a file cut short while it was written), counted and logged once, the pair before still served.
     */
    private static void watchCertificate(
            Vertx vertx, ServerCertificate certificate, List<HttpVerticle> verticles, AgentMetrics metrics) {
        if (certificate == null) {
            return;
        }
        AtomicReference<String> lastRefusal = new AtomicReference<>();
        vertx.setPeriodic(
                HttpOptions.TOKEN_FILE_CHECK.toMillis(),
                id -> vertx.<ServerCertificate.Candidate>executeBlocking(() -> certificate.reload(vertx), true)
                        .compose(changed -> {
                            if (changed == null) {
                                return Future.succeededFuture(null);
                            }
                            List<Future<Boolean>> updates = new ArrayList<>();
                            for (HttpVerticle verticle : verticles) {
                                updates.add(verticle.updateCertificate(changed.keyCert()));
                            }
                            // Servers of one port share their TLS context: the first to take the pair changes
                            // it, the others find it taken (false). A pair that does not load fails them, and
                            // is tried again at the next look.
                            return Future.all(updates).map(all -> {
                                certificate.accept(changed);
                                return "applied";
                            });
                        })
                        .onComplete(ar -> {
                            if (ar.succeeded() && ar.result() != null) {
                                lastRefusal.set(null);
                                metrics.tlsReloaded(true);
                                LOG.log(
                                        System.Logger.Level.INFO,
                                        "TLS certificate files read again: serving the new pair");
                            } else if (ar.failed()) {
                                String why = String.valueOf(ar.cause().getMessage());
                                if (why.equals(lastRefusal.getAndSet(why))) {
                                    return; // said once until it changes
                                }
                                metrics.tlsReloaded(false);
                                LOG.log(
                                        System.Logger.Level.WARNING,
                                        "TLS certificate files not applied, the pair before is still served: " + why);
                            }
                        }));
    }

    /**
     * {@code ", ready 412 ms after the JVM started"}: the JVM's own uptime, to the millisecond (the process's start
     * time, from {@code /proc}, counts from a boot time the kernel gives in whole seconds).
     */
    private static String sinceJvmStart() {
        return ", ready "
                + java.lang.management.ManagementFactory.getRuntimeMXBean().getUptime() + " ms after the JVM started";
    }

    private static int freePort(String host) {
        try (java.net.ServerSocket socket = new java.net.ServerSocket(0, 1, java.net.InetAddress.getByName(host))) {
            return socket.getLocalPort();
        } catch (java.io.IOException e) {
            throw new IllegalStateException("cannot find a free port on " + host + ": " + e.getMessage(), e);
        }
    }

    /** The claim path's store (maybe behind the near-cache) and the range store; closing the first closes both. */
    private record Stores(ClaimStore claims, RangeStore ranges) {}

    private static Stores openStore(
            AgentOptions options, LongSupplier clockMillis, AgentMetrics metrics, EventLoopGroup eventLoops) {
        if (options.redis().enabled()) {
            RedisStore redis = new RedisStore(
                    options.redis(), options.windows(), Housekeeping.of(clockMillis), metrics.registry(), eventLoops);
            if (!options.nearCache().enabled()) {
                return new Stores(redis, redis);
            }
            try {
                NearCache cache = new NearCache(options.nearCache().maxEntries(), clockMillis, metrics.registry());
                ReleaseFeed.Subscription releases = redis.subscribe(cache);
                return new Stores(new NearCachedStore(redis, cache, clockMillis, releases), redis);
            } catch (RuntimeException e) {
                redis.close();
                throw new IllegalStateException("cannot subscribe to the release channel: " + e.getMessage(), e);
            }
        }
        EmbeddedStore embedded = new EmbeddedStore(options.embedded(), clockMillis);
        Gauge.builder(MetricNames.EMBEDDED_SLOTS, embedded, EmbeddedStore::slots)
                .description("Slots of the embedded store")
                .register(metrics.registry());
        Gauge.builder(MetricNames.EMBEDDED_OCCUPIED, embedded, EmbeddedStore::occupiedSlots)
                .description("Occupied slots of the embedded store")
                .register(metrics.registry());
        return new Stores(embedded, embedded);
    }

    private static String describe(AgentOptions options, Stores stores) {
        if (stores.ranges() instanceof RedisStore redis) {
            return redis + ", near-cache "
                    + options.nearCache().maxEntries()
                    + " ids; window " + Durations.format(options.windows().defaultWindow());
        }
        return options.embedded().dataDir() + ", " + options.embedded().slots() + " slots, "
                + options.embedded().ways() + "-way; window "
                + Durations.format(options.windows().defaultWindow());
    }

    /** The port it listens on (the chosen one when configured with port 0). */
    public int port() {
        return port;
    }

    /** The port of the operations endpoints alone (the chosen one when configured with 0), or -1 when none. */
    public int opsPort() {
        return options.http().ops() == null ? -1 : options.http().ops().port();
    }

    public AgentOptions options() {
        return options;
    }

    /**
     * Stops accepting, answers what is in flight (up to the shutdown grace), then flushes and closes the store, then
     * stops the event loops (which the Redis client's connections were on).
     */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        long graceMillis = options.http().shutdownGrace().toMillis();
        try {
            vertx.undeploy(servers)
                    .toCompletionStage()
                    .toCompletableFuture()
                    .get(graceMillis + 5000, TimeUnit.MILLISECONDS);
        } catch (Exception e) {
            LOG.log(System.Logger.Level.WARNING, "HTTP servers did not stop cleanly: " + e);
        } finally {
            store.close();
            closeWithin(vertx, 5000);
            metrics.close();
        }
    }

    private static void closeWithin(Vertx vertx, long millis) {
        try {
            vertx.close().toCompletionStage().toCompletableFuture().get(millis, TimeUnit.MILLISECONDS);
        } catch (Exception e) {
            LOG.log(System.Logger.Level.WARNING, "event loops did not stop cleanly: " + e);
        }
    }
}
