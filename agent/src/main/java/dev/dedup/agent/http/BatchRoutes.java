package dev.dedup.agent.http;

import dev.dedup.agent.claims.ClaimService;
import dev.dedup.agent.metrics.AgentMetrics;
import dev.dedup.codec.Batch;
import dev.dedup.codec.BinaryBatchDecoder;
import dev.dedup.codec.JsonBatchDecoder;
import dev.dedup.codec.VerdictEncoder;
import dev.dedup.wire.BatchRejectedException;
import dev.dedup.wire.MediaTypes;
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
                    ErrorReplies.Code.UNSUPPORTED_MEDIA_TYPE,
                    "Content-Type: "
                            + (type == null ? "missing" : "'" + type + "'")
                            + "; send " + MediaTypes.JSON + " or " + MediaTypes.BATCH);
            return;
        }
        ctx.next();
    }

    /** The request's format, from its media type without parameters; null when it names neither. */
    private static WireFormat format(RoutingContext ctx) {
        return WireFormat.ofContentType(ctx.request().getHeader("Content-Type"));
    }

    void claims(RoutingContext ctx) {
        handle(ctx, Endpoint.CLAIMS, claims::claim);
    }

    void releases(RoutingContext ctx) {
        handle(ctx, Endpoint.RELEASES, claims::release);
    }

    private void handle(RoutingContext ctx, Endpoint endpoint, Function<Batch, CompletionStage<byte[]>> action) {
        long start = System.nanoTime();
        WireFormat format = format(ctx);
        String endpointName = endpoint.name().toLowerCase(Locale.ROOT);
        Buffer body = ctx.body().buffer();
        byte[] bytes = body == null ? new byte[0] : body.getBytes();
        Batch batch;
        try {
            batch = format == WireFormat.JSON
                    ? JsonBatchDecoder.decode(bytes, maxBatch)
                    : BinaryBatchDecoder.decode(bytes, maxBatch);
        } catch (BatchRejectedException e) {
            fail(ctx, endpointName, format, ErrorReplies.Code.of(e), e.getMessage(), start);
            return;
        }
        CompletionStage<byte[]> stage;
        try {
            stage = action.apply(batch);
        } catch (BatchRejectedException e) { // checked against the namespace's settings, before any claim
            fail(ctx, endpointName, format, ErrorReplies.Code.BAD_REQUEST, e.getMessage(), start);
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

    private void fail(
            RoutingContext ctx,
            String endpoint,
            WireFormat format,
            ErrorReplies.Code code,
            String message,
            long start) {
        ErrorReplies.reject(metrics, ctx.response(), code, message);
        metrics.recordRequest(endpoint, format, code.wire(), System.nanoTime() - start);
    }

    private static void reply(HttpServerResponse response, Endpoint endpoint, WireFormat format, byte[] codes) {
        byte[] body = format == WireFormat.BINARY
                ? codes
                : endpoint == Endpoint.CLAIMS ? VerdictEncoder.claimsJson(codes) : VerdictEncoder.releasesJson(codes);
        response.putHeader("Content-Type", format.responseType()).end(Buffer.buffer(body));
    }
}
