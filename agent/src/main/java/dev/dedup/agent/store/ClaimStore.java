package dev.dedup.agent.store;

import dev.dedup.codec.Batch;
import java.util.Map;
import java.util.concurrent.CompletionStage;

/**
 * The port every store implements: the embedded table on one node, or Redis shards. The rest of the
 * agent talks only to this interface.
 *
 * <p>Items of a batch are decided in order, so the same id twice in one batch gives {@code new} then
 * {@code retry} (same owner) or {@code duplicate} (another owner). A claim and a release of one id are
 * atomic with respect to every other claim or release of that id, in this agent and in any other that
 * shares the store.
 *
 * <p>When the store cannot decide, the returned stage fails with {@link StoreUnavailableException};
 * it never completes with a guess.
 */
public interface ClaimStore extends AutoCloseable {

    /** A short name for {@code /v1/stats} and logs: {@code embedded}, {@code redis}. */
    String kind();

    /**
     * Claims every item of {@code batch} for its owner, kept as {@code policy} (its namespace's) says. An item
     * with an event time ends a window after it on its namespace's {@linkplain EventClocks clock}, which the
     * claim moves on; one without ends a window after the claim. A policy of time buckets gets every item with
     * one; a sliding one, none.
     *
     * @return one verdict code per item, in order: {@code 0} new, {@code 1} retry, {@code 2} duplicate
     */
    CompletionStage<byte[]> claim(Batch batch, ClaimPolicy policy);

    /**
     * Releases each item's claim where it is held, unexpired, by the same owner.
     *
     * @return one byte per item: {@code 1} released, {@code 0} not held by that owner
     */
    CompletionStage<byte[]> release(Batch batch, ClaimPolicy policy);

    /**
     * Each namespace's event clock as this store last saw it ({@link EventClocks}): a claim with an event time whose
     * end its namespace's has passed is no longer held. None by default.
     */
    default EventClocks eventClocks() {
        return EventClocks.NONE;
    }

    /** Completes when the store answers; fails with the reason otherwise. */
    CompletionStage<Void> ready();

    /** The store's part of {@code /v1/stats}: plain values, lists and maps, ready for JSON. */
    Map<String, Object> stats();

    /** Makes what was claimed so far durable as far as this store can (e.g. msync of a mapped file). */
    void flush();

    /** Flushes and releases every resource; the store answers nothing afterwards. */
    @Override
    void close();
}
