package dev.dedup.agent.nearcache;

import dev.dedup.agent.store.ClaimPolicy;
import dev.dedup.agent.store.ClaimStore;
import dev.dedup.agent.store.EventClocks;
import dev.dedup.agent.store.LongIntTable;
import dev.dedup.codec.Batch;
import dev.dedup.wire.Verdict;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.LongSupplier;

/**
 * A {@link ClaimStore} in front of another: items whose id this agent claimed recently are answered from
 * the {@link NearCache} without a round trip, the rest go to the store in one sub-batch, in order.
 *
 * <p>The cache answers only what the store would: an entry is made when the store answered {@code new}
 * (so the owner and the end of the claim are known exactly), it ends with the claim, and releases drop it
 * here and, through the release channel, in every other agent. A claim whose answers came back after a
 * release was heard (which found nothing yet to drop) caches none of them ({@link NearCache#changes()}). Releases
 * are rare (a sink that failed gives its batch back), so this costs a few misses; while every agent releases at
 * once, fewer answers are cached, and none is wrong. While that channel is down the cache is
 * bypassed and cleared ({@link NearCache#listening()}), since releases elsewhere would go unseen. It compares
 * the low 32 bits of owner fingerprints, of which Redis keeps the low 28 (32 in event-time buckets), so when two owners'
 * tags collide the cache says {@code duplicate} where the store would say {@code retry}: the right answer; never the
 * other way round.
 *
 * <p>An entry of a claim with an event time ends when the wall clock reaches its end, which a namespace's event
 * clock never passes first: the store holds the claim at least as long.
 *
 * <p>Namespaces with a sliding window go to the store every time: each repeat must renew the claim where
 * it is kept, which an answer from the cache would skip (and an entry renewed only here would outlive the
 * store's claim).
 */
public final class NearCachedStore implements ClaimStore {

    private static final byte NEW = Verdict.NEW.code();
    private static final byte RETRY = Verdict.RETRY.code();
    private static final byte DUPLICATE = Verdict.DUPLICATE.code();

    private final ClaimStore store;
    private final NearCache cache;
    private final LongSupplier clockMillis;
    private final AutoCloseable closeFirst;

    /**
     * {@code cache} is used while it says it is {@linkplain NearCache#listening() listening}, as the release feed
     * that {@code closeFirst} subscribed tells it.
     *
     * @param closeFirst closed before the store: the subscription to the release feed, which uses the store's
     *                   connections
     */
    public NearCachedStore(ClaimStore store, NearCache cache, LongSupplier clockMillis, AutoCloseable closeFirst) {
        this.store = store;
        this.cache = cache;
        this.clockMillis = clockMillis;
        this.closeFirst = closeFirst;
    }

    @Override
    public String kind() {
        return store.kind();
    }

    @Override
    public CompletionStage<byte[]> claim(Batch batch, ClaimPolicy policy) {
        if (!cache.listening() || policy.sliding()) {
            return store.claim(batch, policy);
        }
        int n = batch.size();
        byte[] verdicts = new byte[n];
        int[] misses = new int[n];
        int missCount = 0;
        NearCache.BatchPages pages = cache.batchPages();
        long touched = 0;
        for (int i = 0; i < n; i++) {
            touched += pages.touch(batch.key(i));
        }
        NearCache.keep(touched);
        for (int i = 0; i < n; i++) {
            int hit = pages.lookup(batch.key(i), batch.owner(i));
            if (hit != NearCache.MISS) {
                verdicts[i] = hit == NearCache.SAME_OWNER ? RETRY : DUPLICATE;
            } else {
                misses[missCount++] = i;
            }
        }
        cache.recordLookups(n - missCount, missCount);
        if (missCount > 0 && missCount < n) {
            missCount = followMissedRepeats(batch, misses, missCount);
        }
        if (missCount == 0) {
            return CompletableFuture.completedFuture(verdicts);
        }
        Batch sub = missCount == n ? batch : batch.subset(misses, missCount);
        int subSize = missCount;
        long claimedAt = clockMillis.getAsLong();
        long changesBefore = cache.changes();
        return store.claim(sub, policy).thenApply(answers -> {
            boolean caching = cache.listening() && cache.changes() == changesBefore;
            long now = cache.clockMillis();
            long[] keys = caching ? new long[subSize] : null;
            long[] owners = caching ? new long[subSize] : null;
            long[] ends = caching ? new long[subSize] : null;
            int puts = 0;
            for (int j = 0; j < subSize; j++) {
                int i = misses[j];
                verdicts[i] = answers[j];
                if (answers[j] != NEW || !caching) {
                    continue;
                }
                long end = policy.endMillis(batch, i, claimedAt);
                if (end > now) {
                    keys[puts] = batch.key(i);
                    owners[puts] = batch.owner(i);
                    ends[puts] = end;
                    puts++;
                }
            }
            if (puts > 0) {
                cache.putAll(keys, owners, ends, puts, now);
                if (cache.changes() != changesBefore) {
                    dropNew(batch, misses, subSize, answers);
                }
            }
            return verdicts;
        });
    }

    /**
     * Drops the ids this claim cached: a release, or a change of the release feed, came while it was at the store
     * or caching, and may be of one of them.
     */
    private void dropNew(Batch batch, int[] misses, int subSize, byte[] answers) {
        for (int j = 0; j < subSize; j++) {
            if (answers[j] == NEW) {
                cache.forget(batch.key(misses[j]));
            }
        }
    }

    /**
     * A repeat of an id that goes to the store in this batch must follow it there, in order, rather than be
     * answered from the cache (which another request may have filled between the two lookups). Returns the
     * new number of misses, {@code misses} rewritten in batch order.
     */
    private static int followMissedRepeats(Batch batch, int[] misses, int missCount) {
        // each missed key with the position of its first such item: a repeat keeps the first
        LongIntTable missed = new LongIntTable(missCount);
        for (int j = 0; j < missCount; j++) {
            missed.putIfAbsent(batch.key(misses[j]), misses[j]);
        }
        int n = batch.size();
        int[] merged = null;
        int count = 0;
        int next = 0;
        for (int i = 0; i < n; i++) {
            boolean miss = next < missCount && misses[next] == i;
            if (miss) {
                next++;
            } else {
                int first = missed.get(batch.key(i));
                miss = first >= 0 && first < i;
                if (miss && merged == null) {
                    merged = new int[n];
                    System.arraycopy(misses, 0, merged, 0, next);
                    count = next;
                }
            }
            if (merged != null && miss) {
                merged[count++] = i;
            }
        }
        if (merged == null) {
            return missCount;
        }
        System.arraycopy(merged, 0, misses, 0, count);
        return count;
    }

    @Override
    public CompletionStage<byte[]> release(Batch batch, ClaimPolicy policy) {
        for (int i = 0; i < batch.size(); i++) {
            cache.invalidate(batch.key(i));
        }
        return store.release(batch, policy);
    }

    @Override
    public EventClocks eventClocks() {
        return store.eventClocks();
    }

    @Override
    public CompletionStage<Void> ready() {
        return store.ready();
    }

    @Override
    public Map<String, Object> stats() {
        Map<String, Object> s = new LinkedHashMap<>(store.stats());
        Map<String, Object> near = new LinkedHashMap<>();
        near.put("enabled", true);
        near.put("usable", cache.listening());
        near.put("size", cache.size());
        near.put("hits", cache.hits());
        near.put("misses", cache.misses());
        near.put("hit_ratio", cache.hitRatio());
        s.put("near_cache", near);
        return s;
    }

    @Override
    public void flush() {
        store.flush();
    }

    @Override
    public void close() {
        try {
            closeFirst.close();
        } catch (Exception e) {
            System.getLogger(NearCachedStore.class.getName())
                    .log(System.Logger.Level.WARNING, "closing the release subscriber failed: " + e);
        } finally {
            store.close();
        }
    }
}
