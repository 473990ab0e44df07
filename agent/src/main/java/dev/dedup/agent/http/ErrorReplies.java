package dev.dedup.agent.http;

import dev.dedup.agent.metrics.AgentMetrics;
import dev.dedup.agent.store.StoreUnavailableException;
import dev.dedup.wire.BatchEncoder;
import dev.dedup.wire.MediaTypes;
import io.vertx.core.http.HttpServerResponse;
import java.util.concurrent.CompletionException;

/** The contract's error bodies: {@code {"error": "<code>", "message": "<what and where>"}}. */
final class ErrorReplies {

    static final String BAD_REQUEST = "bad_request";
    static final String TOO_LARGE = "too_large";
    static final String UNSUPPORTED_MEDIA_TYPE = "unsupported_media_type";
    static final String UNAVAILABLE = "unavailable";
    static final String NOT_FOUND = "not_found";
    static final String METHOD_NOT_ALLOWED = "method_not_allowed";
    static final String INTERNAL = "internal";

    /** Seconds a worker should wait before retrying a 503. */
    static final String RETRY_AFTER_SECONDS = "1";

    private ErrorReplies() {}

    static int status(String code) {
        return switch (code) {
            case BAD_REQUEST -> 400;
            case BearerAuth.UNAUTHORIZED -> 401;
            case NOT_FOUND -> 404;
            case METHOD_NOT_ALLOWED -> 405;
            case TOO_LARGE -> 413;
            case UNSUPPORTED_MEDIA_TYPE -> 415;
            case UNAVAILABLE -> 503;
            default -> 500;
        };
    }

    /** What a request whose store call failed is answered: its code and message. */
    record Failure(String code, String message) {}

    /**
     * The answer to a store call that failed with {@code failure}: 503 for a {@link StoreUnavailableException}
     * (counted by kind in {@code dedup_store_errors_total}), else a logged 500. Never a guess.
     */
    static Failure ofStoreCall(Throwable failure, AgentMetrics metrics, String endpoint) {
        Throwable cause =
                failure instanceof CompletionException && failure.getCause() != null ? failure.getCause() : failure;
        if (cause instanceof StoreUnavailableException unavailable) {
            metrics.recordStoreError(unavailable.kind().tag());
            return new Failure(UNAVAILABLE, cause.getMessage());
        }
        System.getLogger(ErrorReplies.class.getName())
                .log(System.Logger.Level.ERROR, "unexpected failure answering " + endpoint, cause);
        return new Failure(INTERNAL, "internal error: " + cause.getClass().getSimpleName());
    }

    /** Answers a request rejected or failed with {@code code}, and counts it in {@code dedup_errors_total}. */
    static void reject(AgentMetrics metrics, HttpServerResponse response, String code, String message) {
        metrics.recordError(code);
        send(response, code, message);
    }

    /** Answers with an error body, uncounted: for answers that are not a rejected request (readiness). */
    static void send(HttpServerResponse response, String code, String message) {
        if (response.headWritten()) {
            return;
        }
        StringBuilder body = new StringBuilder(64 + message.length());
        body.append("{\"error\":");
        BatchEncoder.quote(body, code);
        body.append(",\"message\":");
        BatchEncoder.quote(body, message);
        body.append('}');
        response.setStatusCode(status(code)).putHeader("Content-Type", MediaTypes.JSON);
        if (code.equals(UNAVAILABLE)) {
            response.putHeader("Retry-After", RETRY_AFTER_SECONDS);
        }
        response.end(body.toString());
    }
}
