package dev.dedup.agent.http;

import dev.dedup.agent.claims.ClaimService;
import dev.dedup.agent.config.HttpOptions;
import dev.dedup.agent.metrics.AgentMetrics;
import dev.dedup.agent.ranges.RangeService;
import io.netty.handler.codec.DecoderResult;
import io.vertx.core.Future;
import io.vertx.core.VerticleBase;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.handler.BodyHandler;
import java.lang.System.Logger.Level;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * One HTTP server instance on one event loop; the agent deploys one per event loop and Vert.x spreads
 * connections over them. With an ops port ({@link HttpOptions#ops()}) each instance also serves the
 * operations endpoints there, and nothing else. Stopping it stops accepting and waits up to the shutdown
 * grace for requests in flight, so SIGTERM drains.
 */
public final class HttpVerticle extends VerticleBase {

    private static final System.Logger LOG = System.getLogger(HttpVerticle.class.getName());
    private static final List<String> OPERATIONS = List.of("/health/live", "/health/ready", "/metrics", "/v1/stats");

    private final HttpOptions options;
    private final ClaimService claims;
    private final RangeService ranges;
    private final AgentMetrics metrics;
    private final AtomicInteger boundPort;
    private final BodyBudget bodies;
    private final ConnectionCap connections;
    private final Credentials credentials;
    private final ServerCertificate certificate;
    private HttpServer server;
    private HttpServer opsServer;

    public HttpVerticle(
            HttpOptions options,
            ClaimService claims,
            RangeService ranges,
            AgentMetrics metrics,
            AtomicInteger boundPort,
            BodyBudget bodies,
            ConnectionCap connections,
            Credentials credentials,
            ServerCertificate certificate) {
        this.options = options;
        this.credentials = credentials;
        this.certificate = certificate;
        this.bodies = bodies;
        this.connections = connections;
        this.claims = claims;
        this.ranges = ranges;
        this.metrics = metrics;
        this.boundPort = boundPort;
    }

    @Override
    public Future<?> start() {
        server = server(router());
        Future<HttpServer> claimPort = server.listen(options.port(), options.host())
                .onSuccess(s -> boundPort.compareAndSet(0, s.actualPort()));
        if (options.ops() == null) {
            return claimPort;
        }
        opsServer = server(opsRouter());
        return claimPort.compose(
                s -> opsServer.listen(options.ops().port(), options.ops().host()));
    }

    /**
     * A server of HTTP/1.1 alone: the clients speak it, and HTTP/2 over cleartext (on by default in Vert.x) would be
     * one more protocol to parse and to bound, for no client.
     */
    private HttpServer server(Router router) {
        HttpServerOptions serverOptions = new HttpServerOptions()
                .setIdleTimeout((int) options.idleTimeout().toMillis())
                .setIdleTimeoutUnit(TimeUnit.MILLISECONDS)
                .setTcpNoDelay(true)
                .setCompressionSupported(false)
                .setHttp2ClearTextEnabled(false);
        if (certificate != null) {
            serverOptions.setSsl(true).setKeyCertOptions(certificate.keyCert());
        }
        return vertx.createHttpServer(serverOptions)
                .connectionHandler(connection -> connections.handle(connection, metrics))
                .requestHandler(router)
                .invalidRequestHandler(this::invalidRequest);
    }

    /**
     * Serves {@code keyCert} on both ports from now on (connections already open keep theirs); true when this
     * server's TLS context changed, false when another server of the port had changed it already. Fails when the pair
     * does not load (a key that does not match, a file cut short): the pair before is still served.
     */
    public Future<Boolean> updateCertificate(io.vertx.core.net.PemKeyCertOptions keyCert) {
        io.vertx.core.net.ServerSSLOptions ssl = new io.vertx.core.net.ServerSSLOptions().setKeyCertOptions(keyCert);
        Future<Boolean> claimPort = server.updateSSLOptions(ssl);
        Future<Boolean> ops = opsServer == null ? Future.succeededFuture(true) : opsServer.updateSSLOptions(ssl);
        return Future.all(claimPort, ops).map(both -> claimPort.result() || ops.result());
    }

    /** The routes; package-private so that a test can compare them with docs/openapi.yaml. */
    Router router() {
        Router router = Router.router(vertx);
        BatchRoutes batches = new BatchRoutes(claims, metrics, options.maxBatch());
        BodyHandler read = BodyHandler.create(false).setBodyLimit(options.maxBody());
        io.vertx.core.Handler<io.vertx.ext.web.RoutingContext> body = ctx -> bodies.handle(ctx, metrics);
        boolean exposed = !HttpOptions.isLoopback(options.host());
        if (credentials.readRequired() || exposed) { // else every request passes: no handler on the claim path
            router.route().handler(new BearerAuth(credentials, exposed, metrics)::handle);
        }

        // The content type is checked on a route of its own, before the body is read; then the body's room is
        // reserved in the budget of bodies held at once (a route of its own too: Vert.x Web reads a body on the
        // first handler of its route).
        router.post("/v1/claims").handler(batches::requireBatchContentType);
        router.post("/v1/claims").handler(body);
        router.post("/v1/claims").handler(read).handler(batches::claims);
        router.post("/v1/releases").handler(batches::requireBatchContentType);
        router.post("/v1/releases").handler(body);
        router.post("/v1/releases").handler(read).handler(batches::releases);
        RangeRoutes rangeRoutes = new RangeRoutes(ranges, metrics, options.maxBatch());
        router.post("/v1/ranges/check").handler(rangeRoutes::requireJson);
        router.post("/v1/ranges/check").handler(body);
        router.post("/v1/ranges/check").handler(read).handler(rangeRoutes::check);
        router.post("/v1/ranges/commit").handler(rangeRoutes::requireJson);
        router.post("/v1/ranges/commit").handler(body);
        router.post("/v1/ranges/commit").handler(read).handler(rangeRoutes::commit);
        operations(router);
        return errorHandlers(router);
    }

    /**
     * The ops port's routes: the operations endpoints alone, with the claim port's token rules (the probes
     * need none); any other path is 404 there, token or not.
     */
    Router opsRouter() {
        Router router = Router.router(vertx);
        BearerAuth auth = new BearerAuth(
                credentials, !HttpOptions.isLoopback(options.ops().host()), metrics);
        for (String path : OPERATIONS) {
            router.get(path).handler(auth::handle);
        }
        operations(router);
        return errorHandlers(router);
    }

    private void operations(Router router) {
        OpsRoutes ops = new OpsRoutes(claims, metrics);
        router.get("/health/live").handler(ops::live);
        router.get("/health/ready").handler(ops::ready);
        router.get("/metrics").handler(ops::metrics);
        router.get("/v1/stats").handler(ops::stats);
    }

    private Router errorHandlers(Router router) {
        router.errorHandler(
                404,
                ctx -> error(
                        ctx,
                        ErrorReplies.Code.NOT_FOUND,
                        "no endpoint " + ctx.request().method() + " "
                                + ctx.request().path()));
        router.errorHandler(
                405,
                ctx -> error(
                        ctx,
                        ErrorReplies.Code.METHOD_NOT_ALLOWED,
                        ctx.request().method() + " is not allowed on "
                                + ctx.request().path()));
        router.errorHandler(
                413,
                ctx -> error(
                        ctx,
                        ErrorReplies.Code.TOO_LARGE,
                        "body: larger than max-body (" + options.maxBody() + " bytes)"));
        router.errorHandler(
                400,
                ctx -> error(
                        ctx,
                        ErrorReplies.Code.BAD_REQUEST,
                        "body: "
                                + (ctx.failure() == null
                                        ? "unreadable"
                                        : ctx.failure().getMessage())));
        // A body that fails while it is read (broken chunk framing, a client gone mid-body) reaches the
        // router as a failure without a status, which Vert.x Web reports as 200: answer it as the bad
        // request it is, unless the connection is already gone.
        router.errorHandler(200, ctx -> {
            if (!ctx.response().closed()) {
                ctx.response().putHeader("Connection", "close");
                error(ctx, ErrorReplies.Code.BAD_REQUEST, "body: unreadable: " + describe(ctx.failure()));
                ctx.request().connection().close();
            }
        });
        router.errorHandler(500, ctx -> {
            LOG.log(Level.ERROR, "unexpected failure on " + ctx.request().path(), ctx.failure());
            error(ctx, ErrorReplies.Code.INTERNAL, "internal error");
        });
        return router;
    }

    /**
     * A request Netty could not parse (bad request line, header or URI too long, non-numeric
     * Content-Length...): the same JSON error body as every other 400, then the connection is closed,
     * since the stream cannot be trusted to be in step any more.
     */
    private void invalidRequest(HttpServerRequest request) {
        DecoderResult result = request.decoderResult();
        String reason = result == null || result.cause() == null ? "unparseable" : describe(result.cause());
        HttpServerResponse response = request.response();
        response.putHeader("Connection", "close");
        ErrorReplies.reject(metrics, response, ErrorReplies.Code.BAD_REQUEST, "request: " + reason);
        request.connection().close();
    }

    private static String describe(Throwable failure) {
        if (failure == null) {
            return "connection failed";
        }
        String message = failure.getMessage();
        return message == null || message.isBlank() ? failure.getClass().getSimpleName() : message;
    }

    private void error(io.vertx.ext.web.RoutingContext ctx, ErrorReplies.Code code, String message) {
        ErrorReplies.reject(metrics, ctx.response(), code, message);
    }

    @Override
    public Future<?> stop() {
        Future<Void> ops = opsServer == null ? Future.succeededFuture() : opsServer.shutdown(options.shutdownGrace());
        Future<Void> claimPort = server == null ? Future.succeededFuture() : server.shutdown(options.shutdownGrace());
        return Future.join(claimPort, ops);
    }
}
