package dev.dedup.agent.store;

/**
 * The store could not decide (unreachable, timed out, out of memory, closed). Becomes a 503 with
 * {@code Retry-After}; a batch may be partly claimed by its owners when this is thrown, which a retry
 * of the same batch answers with {@code retry}.
 */
public class StoreUnavailableException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final FailureKind kind;

    public StoreUnavailableException(String message) {
        this(FailureKind.UNAVAILABLE, message, null);
    }

    public StoreUnavailableException(String message, Throwable cause) {
        this(FailureKind.UNAVAILABLE, message, cause);
    }

    public StoreUnavailableException(FailureKind kind, String message, Throwable cause) {
        super(message, cause);
        this.kind = kind;
    }

    public FailureKind kind() {
        return kind;
    }
}
