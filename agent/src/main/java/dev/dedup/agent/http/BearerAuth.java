package dev.dedup.agent.http;

import dev.dedup.agent.metrics.AgentMetrics;
import io.vertx.ext.web.RoutingContext;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;

/**
 * Requires {@code Authorization: Bearer <token>} on every request but the probes, compared in constant time.
 * Neither the expected nor the presented token is ever logged or echoed.
 *
 * <p>{@code /health/live} and {@code /health/ready} are answered without the token: the kubelet's HTTP
 * probes cannot carry a Secret. Their status is all they give away; {@code /health/ready}'s reason (which
 * names a shard) only to a caller with the token ({@link #AUTHENTICATED}).
 */
final class BearerAuth {

    /** Context key: false on a probe that came without the right token (absent when no token is set). */
    static final String AUTHENTICATED = "dedup.authenticated";

    private static final String PREFIX = "Bearer ";

    private final byte[] expected;
    private final AgentMetrics metrics;

    BearerAuth(String token, AgentMetrics metrics) {
        this.expected = token.getBytes(StandardCharsets.US_ASCII);
        this.metrics = metrics;
    }

    void handle(RoutingContext ctx) {
        boolean authenticated = matches(ctx.request().getHeader("Authorization"));
        String path = ctx.request().path();
        if (authenticated || "/health/live".equals(path) || "/health/ready".equals(path)) {
            ctx.put(AUTHENTICATED, authenticated);
            ctx.next();
            return;
        }
        // The body is not read: the connection closes once the answer is sent, so a slow body is not drained.
        ctx.response().putHeader("WWW-Authenticate", "Bearer").putHeader("Connection", "close");
        ctx.response().endHandler(done -> ctx.request().connection().close());
        ErrorReplies.reject(
                metrics,
                ctx.response(),
                ErrorReplies.Code.UNAUTHORIZED,
                "missing or wrong bearer token (Authorization: Bearer <token>)");
    }

    private boolean matches(String header) {
        if (header == null || !header.regionMatches(true, 0, PREFIX, 0, PREFIX.length())) {
            return false;
        }
        byte[] presented = header.substring(PREFIX.length()).trim().getBytes(StandardCharsets.US_ASCII);
        return MessageDigest.isEqual(expected, presented);
    }
}
