package dev.dedup.agent.claims;

import dev.dedup.agent.config.WindowOptions;
import dev.dedup.agent.metrics.AgentMetrics;
import dev.dedup.agent.store.ClaimStore;
import dev.dedup.wire.Batch;
import java.util.concurrent.CompletionStage;

/**
 * Decides claims and releases of decoded batches: picks the namespace's window, asks the store, and
 * counts what it answered. The near-cache, when there is one, sits between this service and the store.
 */
public final class ClaimService {

    private final ClaimStore store;
    private final WindowOptions windows;
    private final AgentMetrics metrics;

    public ClaimService(ClaimStore store, WindowOptions windows, AgentMetrics metrics) {
        this.store = store;
        this.windows = windows;
        this.metrics = metrics;
    }

    /** One verdict code per item: 0 new, 1 retry, 2 duplicate. Fails with the store's failure. */
    public CompletionStage<byte[]> claim(Batch batch) {
        return store.claim(batch, windows.windowMillis(batch.namespace())).thenApply(codes -> {
            metrics.recordClaims(codes);
            return codes;
        });
    }

    /** One byte per item: 1 released, 0 not held by that owner. */
    public CompletionStage<byte[]> release(Batch batch) {
        return store.release(batch).thenApply(results -> {
            metrics.recordReleases(results);
            return results;
        });
    }

    public ClaimStore store() {
        return store;
    }

    public WindowOptions windows() {
        return windows;
    }
}
