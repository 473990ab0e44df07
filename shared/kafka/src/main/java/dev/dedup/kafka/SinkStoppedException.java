package dev.dedup.kafka;

/**
 * Thrown by a sink that cannot go on at all (a transactional producer fenced by another with its {@code
 * transactional.id}): the loop gives the batch's claims back, as after any failure of the sink, and then ends,
 * {@code run()} throwing this, instead of reading the batch again.
 */
public class SinkStoppedException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    public SinkStoppedException(String message, Throwable cause) {
        super(message, cause);
    }
}
