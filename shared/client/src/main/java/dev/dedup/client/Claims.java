package dev.dedup.client;

import dev.dedup.wire.Item;
import dev.dedup.wire.Verdict;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Objects;

/**
 * Claims and releases in one namespace with the patience a worker needs. A call that fails decided nothing the
 * worker may rely on, so the same items (same owners) are sent again, 50 ms apart doubling up to 1 s (or after a 503's
 * {@code Retry-After} when that is longer), until the agent answers or {@code patience} runs out; then the last failure is thrown and the caller fails (a Spark task, a poll
 * loop) without skipping anything. While the agent restarts or a Redis shard is down (503), the worker waits; what
 * the failed calls claimed is answered {@code RETRY} when the same items are sent again. A rejected request (4xx:
 * a missing token, an id over the limit) is thrown at once: sending it again gets the same answer.
 *
 * <pre>{@code
 * Claims claims = Claims.fromEnvironment("clicks"); // DEDUP_URL, DEDUP_TOKEN; 60 s of patience
 * List<Verdict> verdicts = claims.claim(items);
 * }</pre>
 *
 * <p>Thread-safe when the client is (a {@link DedupClient} is).
 */
public final class Claims {

    /** How long a worker waits for its agent by default: long enough for a sidecar's restart. */
    public static final Duration DEFAULT_PATIENCE = Duration.ofSeconds(60);

    private static final long FIRST_PAUSE_MS = 50;
    private static final long MAX_PAUSE_MS = 1_000;

    /** Where the time comes from and how a pause is taken: the system's, or a test's. */
    interface Clock {
        Clock SYSTEM = new Clock() {
            @Override
            public long nanoTime() {
                return System.nanoTime();
            }

            @Override
            public void sleep(long millis) throws InterruptedException {
                Thread.sleep(millis);
            }
        };

        long nanoTime();

        void sleep(long millis) throws InterruptedException;
    }

    private final DedupClient client;
    private final String namespace;
    private final Duration patience;
    private final Clock clock;

    /**
     * @param namespace the namespace to claim in ({@code null} or empty: the default one)
     * @param patience  how long to keep sending a call the agent does not answer; zero: once
     * @throws IllegalArgumentException when {@code patience} is negative
     */
    public Claims(DedupClient client, String namespace, Duration patience) {
        this(client, namespace, patience, Clock.SYSTEM);
    }

    Claims(DedupClient client, String namespace, Duration patience, Clock clock) {
        this.client = Objects.requireNonNull(client, "client");
        this.namespace = namespace;
        this.patience = Objects.requireNonNull(patience, "patience");
        if (patience.isNegative()) {
            throw new IllegalArgumentException("patience: must not be negative, got " + patience);
        }
        this.clock = clock;
    }

    /**
     * Claims in {@code namespace} at the agent this process's environment names ({@code DEDUP_URL}, with {@code
     * DEDUP_TOKEN} when set: {@link DedupClient#fromEnvironment()}), waiting {@link #DEFAULT_PATIENCE} for it.
     *
     * @throws IllegalArgumentException when {@code DEDUP_URL} or {@code DEDUP_TOKEN} is not valid, naming it
     */
    public static Claims fromEnvironment(String namespace) {
        return new Claims(DedupClient.fromEnvironment(), namespace, DEFAULT_PATIENCE);
    }

    /** The client the calls go through. */
    public DedupClient client() {
        return client;
    }

    /** The namespace claimed in. */
    public String namespace() {
        return namespace;
    }

    /**
     * One verdict per item, in order.
     *
     * @throws DedupException when the agent rejected the request (4xx), or still answered an error when the
     *     patience ran out
     * @throws IOException when the agent could not be reached until the patience ran out
     * @throws InterruptedException when interrupted between two tries
     */
    public List<Verdict> claim(List<Item> items) throws IOException, InterruptedException {
        Objects.requireNonNull(items, "items");
        return patiently(() -> client.claim(namespace, items));
    }

    /**
     * Gives the claims back (processing failed and the records will be delivered again); a claim is released only
     * where the item's owner holds it.
     *
     * @return per item, in order, whether it was released: false where its owner did not hold it
     * @throws DedupException when the agent rejected the request (4xx), or still answered an error when the
     *     patience ran out
     * @throws IOException when the agent could not be reached until the patience ran out
     * @throws InterruptedException when interrupted between two tries
     */
    public boolean[] release(List<Item> items) throws IOException, InterruptedException {
        Objects.requireNonNull(items, "items");
        if (items.isEmpty()) {
            return new boolean[0];
        }
        return patiently(() -> client.release(namespace, items));
    }

    private interface Call<T> {
        T send() throws IOException;
    }

    private <T> T patiently(Call<T> call) throws IOException, InterruptedException {
        long deadline = clock.nanoTime() + patience.toNanos();
        long pauseMs = FIRST_PAUSE_MS;
        while (true) {
            long waitMs;
            try {
                return call.send();
            } catch (IOException e) {
                boolean rejected = e instanceof DedupException && ((DedupException) e).isRejected();
                long left = deadline - clock.nanoTime();
                if (rejected || left <= 0) {
                    throw e;
                }
                long askedMs = e instanceof DedupException
                        ? ((DedupException) e).retryAfterSeconds().orElse(0) * 1_000
                        : 0;
                waitMs = Math.min(Math.max(pauseMs, askedMs), Math.max(1, left / 1_000_000));
                System.err.println("dedup: " + client.base() + " did not answer (" + e.getMessage()
                        + "); sending the same items again in " + waitMs + " ms");
            }
            clock.sleep(waitMs);
            pauseMs = Math.min(pauseMs * 2, MAX_PAUSE_MS);
        }
    }
}
