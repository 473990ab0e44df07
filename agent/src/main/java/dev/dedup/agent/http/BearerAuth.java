package dev.dedup.agent.http;

import dev.dedup.agent.metrics.AgentMetrics;
import io.vertx.ext.web.RoutingContext;

/**
 * Lets a request through by what its {@code Authorization: Bearer <token>} may do ({@link Credentials}). Neither
 * an expected nor a presented token is ever logged or echoed.
 *
 * <ul>
 *   <li>{@code /health/live} and {@code /health/ready} are answered without a token: the kubelet's HTTP probes
 *       cannot carry a Secret. Their status is all they give away; {@code /health/ready}'s reason (which names a
 *       shard) only to a caller with a token ({@link #AUTHENTICATED}).
 *   <li>{@code /metrics} and {@code /v1/stats} want a claim or a read token once any token is set. With none set,
 *       {@code /v1/stats} (which names files, Redis hosts and users) is refused on a port that leaves the pod
 *       (bound to an address that is not loopback), and {@code /health/ready} gives no reason there; {@code
 *       /metrics} is served.
 *   <li>Everything else wants a claim token once one is set: a read token gets 403, none 401.
 * </ul>
 */
final class BearerAuth {

    /** Context key: whether the request came with an accepted token (absent when no token is set). */
    static final String AUTHENTICATED = "dedup.authenticated";

    private final Credentials credentials;
    private final boolean exposed;
    private final AgentMetrics metrics;

    /**
     * @param exposed this port is bound to an address that is not loopback (an ops port, or a claim port with
     *     {@code --insecure-bind})
     */
    BearerAuth(Credentials credentials, boolean exposed, AgentMetrics metrics) {
        this.credentials = credentials;
        this.exposed = exposed;
        this.metrics = metrics;
    }

    void handle(RoutingContext ctx) {
        // The router matches the normalized path (dot segments, %-escapes, repeated slashes resolved): so must this,
        // or /v1/%73tats would reach /v1/stats by the claim API's rules.
        String path = ctx.normalizedPath();
        Credentials.Scope scope = credentials.scopeOf(ctx.request().getHeader("Authorization"));
        if (credentials.readRequired() || exposed) {
            ctx.put(AUTHENTICATED, scope != Credentials.Scope.NONE);
        }
        if ("/health/live".equals(path) || "/health/ready".equals(path)) {
            ctx.next();
        } else if ("/metrics".equals(path) || "/v1/stats".equals(path)) {
            if (!credentials.readRequired()) {
                if (exposed && "/v1/stats".equals(path)) {
                    refuse(
                            ctx,
                            ErrorReplies.Code.FORBIDDEN,
                            "/v1/stats names files, Redis hosts and users: on an ops"
                                    + " port that leaves the pod it wants a token; set --read-token (or --read-token-file)"
                                    + " for readers, or ask the claim port on loopback");
                } else {
                    ctx.next();
                }
            } else if (scope != Credentials.Scope.NONE) {
                ctx.next();
            } else {
                unauthorized(ctx);
            }
        } else if (!credentials.claimRequired() || scope == Credentials.Scope.CLAIM) {
            ctx.next();
        } else if (scope == Credentials.Scope.READ) {
            refuse(
                    ctx,
                    ErrorReplies.Code.FORBIDDEN,
                    "a read token may only GET /metrics and /v1/stats; claims and"
                            + " releases want the claim token (--token)");
        } else {
            unauthorized(ctx);
        }
    }

    private void unauthorized(RoutingContext ctx) {
        ctx.response().putHeader("WWW-Authenticate", "Bearer");
        refuse(ctx, ErrorReplies.Code.UNAUTHORIZED, "missing or wrong bearer token (Authorization: Bearer <token>)");
    }

    /** The body is not read: the connection closes once the answer is sent, so a slow body is not drained. */
    private void refuse(RoutingContext ctx, ErrorReplies.Code code, String message) {
        ctx.response().putHeader("Connection", "close");
        ctx.response().endHandler(done -> ctx.request().connection().close());
        ErrorReplies.reject(metrics, ctx.response(), code, message);
    }
}
