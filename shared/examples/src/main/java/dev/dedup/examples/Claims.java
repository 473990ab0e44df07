package dev.dedup.examples;

import dev.dedup.client.DedupClient;
import dev.dedup.client.DedupException;
import dev.dedup.wire.Item;
import dev.dedup.wire.Verdict;
import java.io.IOException;
import java.time.Duration;
import java.util.List;

/**
 * Claims and releases with the patience a worker needs: a call that fails decided nothing, so the same batch (same
 * owners) is sent again until the agent answers or {@code patience} runs out, and then the caller fails (a Spark
 * task, a poll loop) without skipping anything. While the agent restarts or a Redis shard is down (503), the worker
 * waits; claims the failed call made are answered {@code RETRY} when it is sent again.
 */
public final class Claims {

    /** How long a worker waits for its agent by default: long enough for a sidecar's restart. */
    public static final Duration DEFAULT_PATIENCE = Duration.ofSeconds(60);

    private final DedupClient client;
    private final String namespace;
    private final Duration patience;

    public Claims(DedupClient client, String namespace, Duration patience) {
        this.client = client;
        this.namespace = namespace;
        this.patience = patience;
    }

    /**
     * Claims in {@code namespace} at the agent this process's environment names ({@code DEDUP_URL}, with {@code
     * DEDUP_TOKEN} when set: {@link DedupClient#fromEnvironment()}), waiting {@link #DEFAULT_PATIENCE} for it.
     */
    public static Claims fromEnvironment(String namespace) {
        return new Claims(DedupClient.fromEnvironment(), namespace, DEFAULT_PATIENCE);
    }

    /** One verdict per item, in order. */
    public List<Verdict> claim(List<Item> items) throws IOException, InterruptedException {
        long deadline = System.nanoTime() + patience.toNanos();
        long backoffMs = 50;
        while (true) {
            try {
                return client.claim(namespace, items);
            } catch (DedupException e) {
                if (e.isRejected() || System.nanoTime() > deadline) {
                    throw e; // 4xx: the request (or its token) is wrong, sending it again will not help
                }
                log(e);
            } catch (IOException e) {
                if (System.nanoTime() > deadline) {
                    throw e;
                }
                log(e);
            }
            Thread.sleep(backoffMs);
            backoffMs = Math.min(backoffMs * 2, 1_000);
        }
    }

    private static void log(IOException e) {
        System.err.println("dedup: claim not answered (" + e + "), sending it again");
    }

    /** Gives the claims back (processing failed, the records will be delivered again); returns how many were. */
    public int release(List<Item> items) throws IOException, InterruptedException {
        if (items.isEmpty()) {
            return 0;
        }
        long deadline = System.nanoTime() + patience.toNanos();
        long backoffMs = 50;
        while (true) {
            try {
                int released = 0;
                for (boolean b : client.release(namespace, items)) {
                    released += b ? 1 : 0;
                }
                return released;
            } catch (IOException e) {
                if (e instanceof DedupException d && d.isRejected() || System.nanoTime() > deadline) {
                    throw e;
                }
            }
            Thread.sleep(backoffMs);
            backoffMs = Math.min(backoffMs * 2, 1_000);
        }
    }
}
