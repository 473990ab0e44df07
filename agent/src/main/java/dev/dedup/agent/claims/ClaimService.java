package dev.dedup.agent.claims;

import dev.dedup.agent.config.WindowOptions;
import dev.dedup.agent.metrics.AgentMetrics;
import dev.dedup.agent.store.ClaimPolicy;
import dev.dedup.agent.store.ClaimStore;
import dev.dedup.codec.Batch;
import dev.dedup.wire.BatchRejectedException;
import java.util.Map;
import java.util.concurrent.CompletionStage;

/**
 * Decides claims and releases of decoded batches: finds the namespace's {@link ClaimPolicy}, checks the items
 * against it, asks the store, and counts what it answered. The near-cache, when there is one, sits between this
 * service and the store.
 */
public final class ClaimService {

    private final ClaimStore store;
    private final WindowOptions windows;
    private final AgentMetrics metrics;
    /** The policy of every namespace the configuration names. */
    private final Map<String, ClaimPolicy> named;
    /** The policy of every other namespace. */
    private final ClaimPolicy unnamed;

    /** Resolves the policies of {@code windows} once: a request only looks its namespace's up. */
    public ClaimService(ClaimStore store, WindowOptions windows, AgentMetrics metrics) {
        this.store = store;
        this.windows = windows;
        this.metrics = metrics;
        this.named = Map.copyOf(ClaimPolicy.ofNamed(windows));
        this.unnamed = ClaimPolicy.ofUnnamed(windows);
    }

    /**
     * One verdict code per item: 0 new, 1 retry, 2 duplicate. Fails with the store's failure.
     *
     * @throws BatchRejectedException before anything is claimed, when the namespace files claims by event
     *                                time and an item has none
     */
    public CompletionStage<byte[]> claim(Batch batch) {
        ClaimPolicy policy = policy(batch.namespace());
        return store.claim(eventTimesChecked(batch, policy), policy).thenApply(codes -> {
            metrics.recordClaims(codes);
            return codes;
        });
    }

    /** One byte per item: 1 released, 0 not held by that owner. */
    public CompletionStage<byte[]> release(Batch batch) {
        ClaimPolicy policy = policy(batch.namespace());
        return store.release(eventTimesChecked(batch, policy), policy).thenApply(results -> {
            metrics.recordReleases(results);
            return results;
        });
    }

    /**
     * The batch as the store must see it: with every item's event time in a namespace filed by event time
     * (else a 400 naming the first item without one), without event times anywhere else.
     */
    private static Batch eventTimesChecked(Batch batch, ClaimPolicy policy) {
        if (!policy.byEventTime()) {
            return batch.withoutEventTimes();
        }
        int missing = batch.firstWithoutEventTime();
        if (missing >= 0) {
            throw BatchRejectedException.bad("items[" + missing + "].ts: missing; namespace " + batch.namespace()
                    + " files claims by event time (namespace." + batch.namespace()
                    + ".event-rate), so every item needs its message's event time in epoch seconds");
        }
        return batch;
    }

    /** The namespace's policy: its window and, when it files claims by event time, its event rate. */
    public ClaimPolicy policy(String namespace) {
        ClaimPolicy policy = named.get(namespace);
        return policy != null ? policy : unnamed;
    }

    public ClaimStore store() {
        return store;
    }

    public WindowOptions windows() {
        return windows;
    }
}
