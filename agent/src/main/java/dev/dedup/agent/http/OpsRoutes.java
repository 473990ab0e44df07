package dev.dedup.agent.http;

import dev.dedup.agent.claims.ClaimService;
import dev.dedup.agent.metrics.AgentMetrics;
import dev.dedup.agent.metrics.BuildInfo;
import dev.dedup.wire.MediaTypes;
import io.vertx.core.Future;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.RoutingContext;
import java.util.LinkedHashMap;
import java.util.Map;

/** Health, metrics and stats: {@code /health/live}, {@code /health/ready}, {@code /metrics}, {@code /v1/stats}. */
final class OpsRoutes {

    private final ClaimService claims;
    private final AgentMetrics metrics;

    OpsRoutes(ClaimService claims, AgentMetrics metrics) {
        this.claims = claims;
        this.metrics = metrics;
    }

    void live(RoutingContext ctx) {
        ctx.response().putHeader("Content-Type", MediaTypes.JSON).end("{\"status\":\"live\"}");
    }

    void ready(RoutingContext ctx) {
        Future.fromCompletionStage(claims.store().ready(), ctx.vertx().getOrCreateContext())
                .onComplete(ar -> {
                    if (ar.succeeded()) {
                        ctx.response()
                                .putHeader("Content-Type", MediaTypes.JSON)
                                .end(new JsonObject()
                                        .put("status", "ready")
                                        .put("store", claims.store().kind())
                                        .encode());
                    } else if (Boolean.FALSE.equals(ctx.get(BearerAuth.AUTHENTICATED))) {
                        // a probe without the token learns the status, not which shard failed
                        ErrorReplies.send(
                                ctx.response(),
                                ErrorReplies.Code.UNAVAILABLE,
                                "store " + claims.store().kind() + " not ready");
                    } else {
                        ErrorReplies.send(
                                ctx.response(),
                                ErrorReplies.Code.UNAVAILABLE,
                                "store " + claims.store().kind() + " not ready: "
                                        + ar.cause().getMessage());
                    }
                });
    }

    void metrics(RoutingContext ctx) {
        ctx.response()
                .putHeader("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
                .end(metrics.scrape());
    }

    void stats(RoutingContext ctx) {
        Map<String, Object> stats = new LinkedHashMap<>();
        stats.put("version", BuildInfo.current().version());
        Map<String, Object> store = new LinkedHashMap<>();
        store.put("kind", claims.store().kind());
        store.putAll(claims.store().stats());
        stats.put("store", store);
        stats.put("claims", metrics.claimTotals());
        stats.put("releases", metrics.releaseTotals());
        stats.put("windows", claims.windows().describe());
        stats.put("event_rates", claims.windows().describeEventRates());
        stats.put("event_time", claims.eventTimes());
        stats.put("window_modes", claims.windows().describeWindowModes());
        stats.put("namespaces", claims.namespaces().describe());
        ctx.response().putHeader("Content-Type", MediaTypes.JSON).end(new JsonObject(stats).encodePrettily());
    }
}
