package dev.dedup.loadtest.driver;

import io.vertx.core.Future;

/**
 * How a batch reaches the store under test. {@link #prepare} runs before the timed part, so whatever the
 * transport does to a body before sending (copying it into a network buffer, for instance) is not timed.
 *
 * @param <B> a body ready to send
 */
public interface Transport<B> extends AutoCloseable {

    /** Turns a pre-encoded request body into what {@link #send} takes. Called before timing starts. */
    B prepare(byte[] body);

    /**
     * Sends one batch of {@code items} items for worker {@code worker}, on that worker's event-loop context.
     * Completes on that context with one verdict code per item, or fails with a {@link RequestFailure}.
     */
    Future<byte[]> send(int worker, B body, int items);

    /** What the table shows as the target, e.g. {@code http://127.0.0.1:7070}. */
    String describe();

    @Override
    void close();
}
