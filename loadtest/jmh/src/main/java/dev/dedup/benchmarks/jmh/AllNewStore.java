package dev.dedup.benchmarks.jmh;

import dev.dedup.agent.store.ClaimPolicy;
import dev.dedup.agent.store.ClaimStore;
import dev.dedup.codec.Batch;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * A store that answers every item {@code new} at once, and counts the items it was asked for: what the near-cache's
 * benchmarks put behind the cache, so that they time the agent's own work and not a store's.
 */
final class AllNewStore implements ClaimStore {

    /** Items claimed so far. */
    long items;

    @Override
    public String kind() {
        return "all-new";
    }

    @Override
    public CompletionStage<byte[]> claim(Batch batch, ClaimPolicy policy) {
        items += batch.size();
        return CompletableFuture.completedFuture(new byte[batch.size()]);
    }

    @Override
    public CompletionStage<byte[]> release(Batch batch, ClaimPolicy policy) {
        return CompletableFuture.completedFuture(new byte[batch.size()]);
    }

    @Override
    public CompletionStage<Void> ready() {
        return CompletableFuture.completedFuture(null);
    }

    @Override
    public Map<String, Object> stats() {
        return Map.of();
    }

    @Override
    public void flush() {}

    @Override
    public void close() {}
}
