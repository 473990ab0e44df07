package dev.dedup.agent.http;

import dev.dedup.agent.claims.ClaimService;
import dev.dedup.agent.metrics.AgentMetrics;
import dev.dedup.codec.Batch;
import dev.dedup.codec.BinaryBatchDecoder;
import dev.dedup.codec.JsonBatchDecoder;
import dev.dedup.wire.BatchRejectedException;
import dev.dedup.wire.MediaTypes;
import dev.dedup.wire.VerdictEncoder;
import dev.dedup.wire.WireFormat;
import io.vertx.core.Future;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.ext.web.RoutingContext;
import java.util.Locale;
import java.util.concurrent.CompletionStage;
import java.util.function.Function;

/**
 * {@code POST /v1/claims} and {@code POST /v1/releases}: content type, decoding (all validation happens
 * here, before anything is claimed), the claim service, and the answer in the request's format.
 */
final class BatchRoutes {

    private enum Endpoint {
        CLAIMS,
        RELEASES
    }

    private final ClaimService claims;
    private final AgentMetrics metrics;
    private final int maxBatch;

    BatchRoutes(ClaimService claims, AgentMetrics metrics, int maxBatch) {
        this.claims = claims;
        this.metrics = metrics;
        this.maxBatch = maxBatch;
    }

    /** Runs before the body is read: anything but the two formats is a 415 without reading it. */
    void requireBatchContentType(RoutingContext ctx) {
        if (format(ctx) == null) {
            String type = ctx.request().getHeader("Content-Type");
            ErrorReplies.reject(
                    metrics,
                    ctx.response(),
                    ErrorReplies.UNSUPPORTED_MEDIA_TYPE,
                    "Content-Type: "
                            + (type == null ? "missing" : "'" + type + "'")
                            + "; send " + MediaTypes.JSON + " or " + MediaTypes.BATCH);
            return;
        }
        ctx.next();
    }

    /** {@code "json"}, {@code "binary"} or null, from the media type without parameters. */
    private static String format(RoutingContext ctx) {
        WireFormat format = WireFormat.ofContentType(ctx.request().getHeader("Content-Type"));
        return format == null ? null : format.label();
    }

    void claims(RoutingContext ctx) {
        handle(ctx, Endpoint.CLAIMS, claims::claim);
    }

    void releases(RoutingContext ctx) {
        handle(ctx, Endpoint.RELEASES, claims::release);
    }

    private void handle(RoutingContext ctx, Endpoint endpoint, Function<Batch, CompletionStage<byte[]>> action) {
        long start = System.nanoTime();
        String format = format(ctx);
        String endpointName = endpoint.name().toLowerCase(Locale.ROOT);
        Buffer body = ctx.body().buffer();
        byte[] bytes = body == null ? new byte[0] : body.getBytes();
        Batch batch;
        try {
            batch = format.equals("json")
                    ? JsonBatchDecoder.decode(bytes, maxBatch)
                    : BinaryBatchDecoder.decode(bytes, maxBatch);
        } catch (BatchRejectedException e) {
            String code = e.reason() == BatchRejectedException.Reason.TOO_LARGE
                    ? ErrorReplies.TOO_LARGE
                    : ErrorReplies.BAD_REQUEST;
            fail(ctx, endpointName, format, code, e.getMessage(), start);
            return;
        }
        CompletionStage<byte[]> stage;
        try {
            stage = action.apply(batch);
        } catch (BatchRejectedException e) { // checked against the namespace's settings, before any claim
            fail(ctx, endpointName, format, ErrorReplies.BAD_REQUEST, e.getMessage(), start);
            return;
        } catch (RuntimeException e) {
            stage = java.util.concurrent.CompletableFuture.failedFuture(e);
        }
        Future.fromCompletionStage(stage, ctx.vertx().getOrCreateContext()).onComplete(ar -> {
            if (ar.succeeded()) {
                reply(ctx.response(), endpoint, format, ar.result());
                metrics.recordRequest(endpointName, format, "ok", System.nanoTime() - start);
            } else {
                ErrorReplies.Failure failure = ErrorReplies.ofStoreCall(ar.cause(), metrics, endpointName);
                fail(ctx, endpointName, format, failure.code(), failure.message(), start);
            }
        });
    }

    private void fail(RoutingContext ctx, String endpoint, String format, String code, String message, long start) {
        ErrorReplies.reject(metrics, ctx.response(), code, message);
        metrics.recordRequest(endpoint, format, code, System.nanoTime() - start);
    }

    private static void reply(HttpServerResponse response, Endpoint endpoint, String format, byte[] codes) {
        if (format.equals("binary")) {
            response.putHeader("Content-Type", MediaTypes.VERDICTS).end(Buffer.buffer(codes));
        } else {
            byte[] json =
                    endpoint == Endpoint.CLAIMS ? VerdictEncoder.claimsJson(codes) : VerdictEncoder.releasesJson(codes);
            response.putHeader("Content-Type", MediaTypes.JSON).end(Buffer.buffer(json));
        }
    }
}
