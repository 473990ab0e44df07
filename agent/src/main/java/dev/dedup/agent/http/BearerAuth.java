package dev.dedup.agent.http;

import dev.dedup.agent.metrics.AgentMetrics;
import io.vertx.ext.web.RoutingContext;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;

/**
 * Requires {@code Authorization: Bearer <token>} on every request but {@code /health/live}, compared in
 * constant time. Neither the expected nor the presented token is ever logged or echoed.
 */
final class BearerAuth {

    static final String UNAUTHORIZED = "unauthorized";
    private static final String PREFIX = "Bearer ";

    private final byte[] expected;
    private final AgentMetrics metrics;

    BearerAuth(String token, AgentMetrics metrics) {
        this.expected = token.getBytes(StandardCharsets.US_ASCII);
        this.metrics = metrics;
    }

    void handle(RoutingContext ctx) {
        if ("/health/live".equals(ctx.request().path()) || matches(ctx.request().getHeader("Authorization"))) {
            ctx.next();
            return;
        }
        ctx.response().putHeader("WWW-Authenticate", "Bearer");
        ErrorReplies.reject(
                metrics, ctx.response(), UNAUTHORIZED, "missing or wrong bearer token (Authorization: Bearer <token>)");
    }

    private boolean matches(String header) {
        if (header == null || !header.regionMatches(true, 0, PREFIX, 0, PREFIX.length())) {
            return false;
        }
        byte[] presented = header.substring(PREFIX.length()).trim().getBytes(StandardCharsets.US_ASCII);
        return MessageDigest.isEqual(expected, presented);
    }
}
