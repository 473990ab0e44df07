package dev.dedup.agent.store.redis;

import dev.dedup.agent.store.ClaimPolicy;
import dev.dedup.agent.store.redis.layout.FingerprintTables;
import dev.dedup.agent.store.redis.layout.RedisRanges;
import dev.dedup.agent.store.redis.layout.TimeBuckets;
import dev.dedup.agent.store.redis.topology.ShardLists;
import dev.dedup.agent.store.redis.topology.Topology;
import dev.dedup.codec.Batch;
import dev.dedup.codec.RangeRequest;
import dev.dedup.wire.SequenceRange;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionStage;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * A declared change of the shard list ({@code --redis-previous}, {@code --redis-cutover}): the current {@link
 * ShardList}, which this is, and the previous one, over one port, and which of them answers.
 *
 * <ul>
 *   <li>Until the cut-over ({@link Topology#cutOver}) claims, releases and ranges are in the previous list. The
 *       first call at or after the cut-over second waits for the cut-over ({@link Topology#routable}).
 *   <li>After it they are in the current list. An id whose shard changed ({@link ShardLists#moves}) is first
 *       looked up in its previous shard: a claim found there is the answer, and is copied to the new shard with its
 *       owner and end; a release releases there too. A moved stream's ranges are checked on both shards (their
 *       union) and committed on the new one.
 *   <li>A time bucket is in the list in force at its event second, whatever the cut-over ({@link
 *       ShardLists#timeShard}).
 * </ul>
 *
 * <p>Nothing is moved otherwise: the previous list is needed until every claim made before the cut-over has ended,
 * a window after it, or two once claims carry event times (kept until their namespace's clock is a window past
 * their end; {@code previous_droppable} in {@code /v1/stats}).
 */
final class ShardListChange extends ShardList {

    private final ShardLists lists;
    private final ShardList previous;
    /** Time buckets in the list in force at their event second. */
    private final ShardList bySecond;

    private final FingerprintTables fingerprints;
    private final Topology topology;
    private final LongSupplier clockMillis;
    /** The previous list's servers, without credentials, for {@code /v1/stats}. */
    private final List<String> previousNames;

    private final Instant cutover;
    /** The longest window of any namespace. */
    private final long longestWindowMillis;
    /**
     * Whether claims may carry event times: a namespace is filed in time buckets, or the store keeps an event clock
     * (this agent claimed an item with {@code ts}).
     */
    private final java.util.function.BooleanSupplier eventTimes;

    /**
     * {@code longestWindowMillis}: the longest window of any namespace; claims made before the cut-over live in the
     * previous list for as long after it (one renewed since, in a sliding window, was copied when it was), or twice
     * as long while {@code eventTimes} says claims carry event times.
     */
    ShardListChange(
            ShardLists lists,
            FingerprintTables fingerprints,
            TimeBuckets times,
            RedisRanges ranges,
            Topology topology,
            List<String> previousNames,
            Instant cutover,
            long longestWindowMillis,
            java.util.function.BooleanSupplier eventTimes,
            LongSupplier clockMillis) {
        super(lists.current(), fingerprints, times, ranges);
        this.lists = lists;
        this.previous = new ShardList(lists.previous(), fingerprints, times, ranges);
        this.bySecond = new ShardList(lists.current(), lists::timeShard, fingerprints, times, ranges);
        this.fingerprints = fingerprints;
        this.topology = topology;
        this.clockMillis = clockMillis;
        this.previousNames = List.copyOf(previousNames);
        this.cutover = cutover;
        this.longestWindowMillis = longestWindowMillis;
        this.eventTimes = eventTimes;
    }

    /**
     * Until when the previous list holds claims or ranges the agent may be asked about: a window after the
     * cut-over, two once claims carry event times.
     */
    private long previousNeededUntil() {
        return cutover.toEpochMilli() + (eventTimes.getAsBoolean() ? 2 : 1) * longestWindowMillis;
    }

    @Override
    CompletionStage<byte[]> claim(Batch batch, ClaimPolicy policy, long nowMillis) {
        return routed(
                nowMillis, () -> inOneList(batch, policy, nowMillis, ShardList::claim, super::claim, this::claimMoved));
    }

    @Override
    CompletionStage<byte[]> release(Batch batch, ClaimPolicy policy, long nowMillis) {
        return routed(
                nowMillis,
                () -> inOneList(batch, policy, nowMillis, ShardList::release, super::release, this::releaseMoved));
    }

    /** A claim or a release of a batch: in one {@link ShardList}, or across both with the positions that moved. */
    @FunctionalInterface
    private interface Call<W> {
        CompletionStage<byte[]> call(W where, Batch batch, ClaimPolicy policy, long nowMillis);
    }

    /** The same in the current list: this list's own, not overridden. */
    @FunctionalInterface
    private interface Current {
        CompletionStage<byte[]> call(Batch batch, ClaimPolicy policy, long nowMillis);
    }

    /**
     * {@code inOne} in the one list that holds the whole batch: the list of each event second, the previous list
     * before the cut-over; after it {@code current} when none of the batch's ids moved, else {@code across}, told
     * the positions of the ids that did.
     */
    private CompletionStage<byte[]> inOneList(
            Batch batch,
            ClaimPolicy policy,
            long nowMillis,
            Call<ShardList> inOne,
            Current current,
            Call<int[]> across) {
        if (policy.timeBuckets()) {
            return inOne.call(bySecond, batch, policy, nowMillis);
        }
        if (!topology.cutOver()) {
            return inOne.call(previous, batch, policy, nowMillis);
        }
        int[] moved = moved(batch);
        return moved.length == 0
                ? current.call(batch, policy, nowMillis)
                : across.call(moved, batch, policy, nowMillis);
    }

    /** Claims found in the previous list at {@code moved} are the answer there, and are copied to the current one. */
    private CompletionStage<byte[]> claimMoved(int[] moved, Batch batch, ClaimPolicy policy, long nowMillis) {
        return fingerprints
                .look(lists.previous(), batch, policy, moved, nowMillis)
                .thenCompose(held -> fingerprints
                        .claim(lists.current(), batch, policy, nowMillis, held)
                        .thenApply(here -> {
                            for (int j = 0; j < moved.length; j++) {
                                if (held.answers()[j] != 0) {
                                    here[moved[j]] = held.answers()[j];
                                }
                            }
                            return here;
                        }));
    }

    /** The ids at {@code moved} are released in the previous list too. */
    private CompletionStage<byte[]> releaseMoved(int[] moved, Batch batch, ClaimPolicy policy, long nowMillis) {
        return fingerprints
                .release(lists.previous(), batch, policy, moved, nowMillis)
                .thenCompose(there -> super.release(batch, policy, nowMillis).thenApply(here -> {
                    for (int j = 0; j < moved.length; j++) {
                        here[moved[j]] |= there[j];
                    }
                    return here;
                }));
    }

    @Override
    CompletionStage<List<List<SequenceRange>>> checkRanges(RangeRequest request, long nowMillis) {
        return routed(nowMillis, () -> {
            if (!topology.cutOver()) {
                return previous.checkRanges(request, nowMillis);
            }
            CompletionStage<List<List<SequenceRange>>> here = super.checkRanges(request, nowMillis);
            if (!lists.moves(RedisRanges.placement(request))) {
                return here;
            }
            return here.thenCombine(previous.checkRanges(request, nowMillis), (now, before) -> {
                List<List<SequenceRange>> union = new ArrayList<>(now.size());
                for (int k = 0; k < now.size(); k++) {
                    union.add(RedisRanges.union(now.get(k), before.get(k)));
                }
                return union;
            });
        });
    }

    @Override
    CompletionStage<Void> commitRanges(RangeRequest request, ClaimPolicy policy, long nowMillis) {
        return routed(
                nowMillis,
                () -> topology.cutOver()
                        ? super.commitRanges(request, policy, nowMillis)
                        : previous.commitRanges(request, policy, nowMillis));
    }

    /** {@code call}, after the cut-over when it is due and not yet made. */
    private <T> CompletionStage<T> routed(long nowMillis, Supplier<CompletionStage<T>> call) {
        if (topology.cutOver()) {
            return call.get();
        }
        return topology.routable(nowMillis).thenCompose(ready -> call.get());
    }

    /** The positions of the batch's items the change places on another server. */
    private int[] moved(Batch batch) {
        int n = 0;
        int[] moved = new int[batch.size()];
        for (int i = 0; i < batch.size(); i++) {
            if (lists.moves(FingerprintTables.placement(batch, i))) {
                moved[n++] = i;
            }
        }
        return java.util.Arrays.copyOf(moved, n);
    }

    /** {@code transition}: the previous list, the cut-over, and whether the previous list may be dropped yet. */
    @Override
    void stats(Map<String, Object> stats) {
        Map<String, Object> t = new LinkedHashMap<>();
        t.put("previous", previousNames);
        t.put("cutover", cutover.toString());
        t.put("cut_over", topology.cutOver());
        long neededUntil = previousNeededUntil();
        t.put("previous_needed_until", Instant.ofEpochMilli(neededUntil).toString());
        t.put("previous_droppable", topology.cutOver() && clockMillis.getAsLong() >= neededUntil);
        stats.put("transition", t);
    }
}
