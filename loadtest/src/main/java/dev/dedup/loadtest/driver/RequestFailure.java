package dev.dedup.loadtest.driver;

/**
 * A request that brought no verdicts. {@link #reason()} is what the run counts it under: the HTTP status
 * ({@code "503"}), {@code "io:<exception>"} when the connection failed or timed out, or
 * {@code "bad_response"} when a 200 answer did not hold one valid verdict per item.
 */
public final class RequestFailure extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final String reason;

    public RequestFailure(String reason, String message) {
        super(message, null, false, false);
        this.reason = reason;
    }

    public static RequestFailure status(int status, String body) {
        String shown = body.length() > 200 ? body.substring(0, 200) + "..." : body;
        return new RequestFailure(Integer.toString(status), "HTTP " + status + ": " + shown);
    }

    public static RequestFailure io(Throwable cause) {
        return new RequestFailure("io:" + cause.getClass().getSimpleName(), String.valueOf(cause.getMessage()));
    }

    public static RequestFailure badResponse(String message) {
        return new RequestFailure("bad_response", message);
    }

    public String reason() {
        return reason;
    }
}
