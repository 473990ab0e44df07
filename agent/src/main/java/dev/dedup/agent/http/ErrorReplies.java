package dev.dedup.agent.http;

import dev.dedup.agent.metrics.AgentMetrics;
import dev.dedup.agent.store.StoreUnavailableException;
import dev.dedup.wire.BatchEncoder;
import dev.dedup.wire.BatchRejectedException;
import dev.dedup.wire.MediaTypes;
import io.vertx.core.http.HttpServerResponse;
import java.util.concurrent.CompletionException;

/** The contract's error bodies: {@code {"error": "<code>", "message": "<what and where>"}}. */
final class ErrorReplies {

    /** The contract's error codes: the {@code error} field of the body, and the status it is sent with. */
    enum Code {
        BAD_REQUEST("bad_request", 400),
        /** No bearer token, or the wrong one ({@link BearerAuth}). */
        UNAUTHORIZED("unauthorized", 401),
        /** A read token on the claim API, or {@code /v1/stats} asked without a token where it leaves the pod. */
        FORBIDDEN("forbidden", 403),
        NOT_FOUND("not_found", 404),
        METHOD_NOT_ALLOWED("method_not_allowed", 405),
        TOO_LARGE("too_large", 413),
        UNSUPPORTED_MEDIA_TYPE("unsupported_media_type", 415),
        /** The store cannot answer now: sent with {@code Retry-After}. */
        UNAVAILABLE("unavailable", 503),
        INTERNAL("internal", 500);

        private final String wire;
        private final int status;

        Code(String wire, int status) {
            this.wire = wire;
            this.status = status;
        }

        /** The body's {@code error} field, and the {@code kind} of {@code dedup_errors_total}. */
        String wire() {
            return wire;
        }

        int status() {
            return status;
        }

        /** A body the decoders rejected: {@code too_large} past a limit, else {@code bad_request}. */
        static Code of(BatchRejectedException rejected) {
            return rejected.reason() == BatchRejectedException.Reason.TOO_LARGE ? TOO_LARGE : BAD_REQUEST;
        }
    }

    /** Seconds a worker should wait before retrying a 503. */
    static final String RETRY_AFTER_SECONDS = "1";

    private ErrorReplies() {}

    /** What a request whose store call failed is answered: its code and message. */
    record Failure(Code code, String message) {}

    /**
     * The answer to a store call that failed with {@code failure}: 503 for a {@link StoreUnavailableException}
     * (counted by kind in {@code dedup_store_errors_total}), else a logged 500. Never a guess.
     */
    static Failure ofStoreCall(Throwable failure, AgentMetrics metrics, String endpoint) {
        Throwable cause =
                failure instanceof CompletionException && failure.getCause() != null ? failure.getCause() : failure;
        if (cause instanceof StoreUnavailableException unavailable) {
            metrics.recordStoreError(unavailable.kind().tag());
            return new Failure(Code.UNAVAILABLE, cause.getMessage());
        }
        System.getLogger(ErrorReplies.class.getName())
                .log(System.Logger.Level.ERROR, "unexpected failure answering " + endpoint, cause);
        return new Failure(Code.INTERNAL, "internal error: " + cause.getClass().getSimpleName());
    }

    /** Answers a request rejected or failed with {@code code}, and counts it in {@code dedup_errors_total}. */
    static void reject(AgentMetrics metrics, HttpServerResponse response, Code code, String message) {
        metrics.recordError(code.wire());
        send(response, code, message);
    }

    /** Answers with an error body, uncounted: for answers that are not a rejected request (readiness). */
    static void send(HttpServerResponse response, Code code, String message) {
        if (response.headWritten()) {
            return;
        }
        StringBuilder body = new StringBuilder(64 + message.length());
        body.append("{\"error\":");
        BatchEncoder.quote(body, code.wire());
        body.append(",\"message\":");
        BatchEncoder.quote(body, message);
        body.append('}');
        response.setStatusCode(code.status()).putHeader("Content-Type", MediaTypes.JSON);
        if (code == Code.UNAVAILABLE) {
            response.putHeader("Retry-After", RETRY_AFTER_SECONDS);
        }
        response.end(body.toString());
    }
}
