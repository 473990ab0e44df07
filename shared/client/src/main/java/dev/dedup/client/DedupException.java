package dev.dedup.client;

import java.io.IOException;
import java.util.OptionalLong;

/**
 * The agent answered, but not with verdicts: a non-200 status ({@code 400 bad_request}, {@code 413 too_large},
 * {@code 503 unavailable}...), or a 200 whose body does not match the request ({@link #INVALID_RESPONSE}).
 * Either way nothing may be skipped: the messages of the batch have no verdict.
 *
 * <p>It is an {@link IOException}, like a refused connection or a timeout, so that a worker can treat every
 * way a call fails alike; catch this type to tell a rejected request (4xx: fix the request) from an agent that
 * cannot decide (503: retry after {@link #retryAfterSeconds()}).
 */
public final class DedupException extends IOException {

    private static final long serialVersionUID = 1L;

    /** The error code of a 200 answer that cannot be read as verdicts for the items sent. */
    public static final String INVALID_RESPONSE = "invalid_response";

    private final int status;
    private final String error;
    private final String detail;
    private final long retryAfterSeconds;

    /**
     * @param status            the HTTP status
     * @param error             the contract's error code ({@code bad_request}...), or {@code http_<status>}
     *                          when the body carries none
     * @param detail            the agent's message (what and where, e.g. {@code items[3].id: empty})
     * @param retryAfterSeconds from the {@code Retry-After} header, or -1 when absent
     */
    public DedupException(int status, String error, String detail, long retryAfterSeconds) {
        super(status + " " + error + (detail == null || detail.isEmpty() ? "" : ": " + detail));
        this.status = status;
        this.error = error;
        this.detail = detail == null ? "" : detail;
        this.retryAfterSeconds = retryAfterSeconds;
    }

    /** The HTTP status of the answer. */
    public int status() {
        return status;
    }

    /**
     * The error code: {@code bad_request}, {@code too_large}, {@code unsupported_media_type}, {@code unavailable},
     * {@link #INVALID_RESPONSE}, or {@code http_<status>} when the answer carried none.
     */
    public String error() {
        return error;
    }

    /** The agent's message, which says what and where; empty when the answer had none. */
    public String detail() {
        return detail;
    }

    /** Seconds to wait before retrying, when the answer carried a {@code Retry-After} header. */
    public OptionalLong retryAfterSeconds() {
        return retryAfterSeconds < 0 ? OptionalLong.empty() : OptionalLong.of(retryAfterSeconds);
    }

    /** True for a 4xx: the request itself is wrong, and sending it again gets the same answer. */
    public boolean isRejected() {
        return status >= 400 && status < 500;
    }
}
