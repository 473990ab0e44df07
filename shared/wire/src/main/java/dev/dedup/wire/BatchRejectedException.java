package dev.dedup.wire;

/**
 * A request body that cannot become a batch. The message says what and where
 * ({@code items[3].id: empty}); nothing has been claimed when this is thrown.
 */
public final class BatchRejectedException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    /** Why the body was rejected; each maps to one HTTP status of the contract. */
    public enum Reason {
        /** Malformed JSON or binary, a missing or empty field, a field too long, a bad namespace: 400. */
        BAD_REQUEST,
        /** More items than {@code max-batch} (or a body over {@code max-body}): 413. */
        TOO_LARGE
    }

    private final Reason reason;

    public BatchRejectedException(Reason reason, String message) {
        super(message, null, false, false);
        this.reason = reason;
    }

    public static BatchRejectedException bad(String message) {
        return new BatchRejectedException(Reason.BAD_REQUEST, message);
    }

    /** A 413: a body of more than {@code maxItems} items. */
    public static BatchRejectedException tooMany(int maxItems) {
        return new BatchRejectedException(Reason.TOO_LARGE, "items: more than max-batch (" + maxItems + ") items");
    }

    public Reason reason() {
        return reason;
    }
}
