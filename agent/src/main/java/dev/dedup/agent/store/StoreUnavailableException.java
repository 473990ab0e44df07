package dev.dedup.agent.store;

/**
 * The store could not decide (unreachable, timed out, out of memory, closed). Becomes a 503 with
 * {@code Retry-After}; a batch may be partly claimed by its owners when this is thrown, which a retry
 * of the same batch answers with {@code retry}.
 */
public class StoreUnavailableException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    /** The {@code kind} of a failure that says no more than "unavailable". */
    public static final String UNAVAILABLE = "unavailable";

    private final String kind;

    public StoreUnavailableException(String message) {
        this(UNAVAILABLE, message, null);
    }

    public StoreUnavailableException(String message, Throwable cause) {
        this(UNAVAILABLE, message, cause);
    }

    /**
     * @param kind a short lowercase word for metrics: {@code timeout}, {@code connection}, {@code oom},
     *             {@code readonly}, {@code loading}, {@code busy}, {@code overloaded}, {@code closed}...
     */
    public StoreUnavailableException(String kind, String message, Throwable cause) {
        super(message, cause);
        this.kind = kind;
    }

    public String kind() {
        return kind;
    }
}
