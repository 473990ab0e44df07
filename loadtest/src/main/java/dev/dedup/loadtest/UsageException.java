package dev.dedup.loadtest;

/** A bad command line: the message is the one line printed before exiting with status 2. */
public final class UsageException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    public UsageException(String message) {
        super(message);
    }
}
