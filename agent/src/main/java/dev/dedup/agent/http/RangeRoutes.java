package dev.dedup.agent.http;

import dev.dedup.agent.metrics.AgentMetrics;
import dev.dedup.agent.ranges.RangeService;
import dev.dedup.codec.JsonRangeDecoder;
import dev.dedup.codec.RangeRequest;
import dev.dedup.wire.BatchRejectedException;
import dev.dedup.wire.MediaTypes;
import dev.dedup.wire.RangeEncoder;
import dev.dedup.wire.WireFormat;
import io.vertx.core.Future;
import io.vertx.core.buffer.Buffer;
import io.vertx.ext.web.RoutingContext;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Function;

/**
 * {@code POST /v1/ranges/check} and {@code POST /v1/ranges/commit}: JSON only. The body is decoded and
 * checked whole before the store is asked, so a rejected request commits nothing.
 */
final class RangeRoutes {

    private final RangeService ranges;
    private final AgentMetrics metrics;
    private final int maxRanges;

    RangeRoutes(RangeService ranges, AgentMetrics metrics, int maxRanges) {
        this.ranges = ranges;
        this.metrics = metrics;
        this.maxRanges = maxRanges;
    }

    /** Runs before the body is read: anything but JSON is a 415 without reading it. */
    void requireJson(RoutingContext ctx) {
        String type = ctx.request().getHeader("Content-Type");
        if (WireFormat.ofContentType(type) != WireFormat.JSON) {
            ErrorReplies.reject(
                    metrics,
                    ctx.response(),
                    ErrorReplies.Code.UNSUPPORTED_MEDIA_TYPE,
                    "Content-Type: "
                            + (type == null ? "missing" : "'" + type + "'") + "; the ranges endpoints take "
                            + MediaTypes.JSON);
            return;
        }
        ctx.next();
    }

    void check(RoutingContext ctx) {
        handle(ctx, "ranges_check", request -> ranges.check(request).thenApply(RangeEncoder::done));
    }

    void commit(RoutingContext ctx) {
        handle(
                ctx,
                "ranges_commit",
                request -> ranges.commit(request)
                        .thenApply(ignored ->
                                RangeEncoder.committed(request.ranges().size())));
    }

    private void handle(RoutingContext ctx, String endpoint, Function<RangeRequest, CompletionStage<byte[]>> action) {
        long start = System.nanoTime();
        Buffer body = ctx.body().buffer();
        RangeRequest request;
        try {
            request = JsonRangeDecoder.decode(body == null ? new byte[0] : body.getBytes(), maxRanges);
        } catch (BatchRejectedException e) {
            fail(ctx, endpoint, ErrorReplies.Code.of(e), e.getMessage(), start);
            return;
        }
        CompletionStage<byte[]> stage;
        try {
            stage = action.apply(request);
        } catch (BatchRejectedException e) { // a namespace past max-namespaces, before anything is done
            fail(ctx, endpoint, ErrorReplies.Code.BAD_REQUEST, e.getMessage(), start);
            return;
        } catch (RuntimeException e) {
            stage = CompletableFuture.failedFuture(e);
        }
        Future.fromCompletionStage(stage, ctx.vertx().getOrCreateContext()).onComplete(ar -> {
            if (ar.succeeded()) {
                ctx.response()
                        .putHeader("Content-Type", WireFormat.JSON.responseType())
                        .end(Buffer.buffer(ar.result()));
                metrics.recordRequest(endpoint, WireFormat.JSON, "ok", System.nanoTime() - start);
                return;
            }
            ErrorReplies.Failure failure = ErrorReplies.ofStoreCall(ar.cause(), metrics, endpoint);
            fail(ctx, endpoint, failure.code(), failure.message(), start);
        });
    }

    private void fail(RoutingContext ctx, String endpoint, ErrorReplies.Code code, String message, long start) {
        ErrorReplies.reject(metrics, ctx.response(), code, message);
        metrics.recordRequest(endpoint, WireFormat.JSON, code.wire(), System.nanoTime() - start);
    }
}
