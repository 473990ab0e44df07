package dev.dedup.agent.nearcache;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.dedup.agent.store.ClaimPolicy;
import dev.dedup.agent.store.ClaimStore;
import dev.dedup.codec.Batch;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.LongSupplier;
import org.junit.jupiter.api.Test;

class NearCachedStoreTest {

    private static final long WINDOW = 60_000;

    /** A store that answers every item new and records the batches it was sent. */
    private static final class RecordingStore implements ClaimStore {
        final List<Batch> claimed = new ArrayList<>();
        /** Runs once, during the next claim: what the agent hears while the claim is at the store. */
        Runnable whileAtTheStore = () -> {};

        @Override
        public String kind() {
            return "recording";
        }

        @Override
        public CompletionStage<byte[]> claim(Batch batch, ClaimPolicy policy) {
            claimed.add(batch);
            Runnable now = whileAtTheStore;
            whileAtTheStore = () -> {};
            now.run();
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

    private static Batch batch(String... idOwnerPairs) {
        Batch.Builder b = Batch.builder(idOwnerPairs.length / 2);
        for (int i = 0; i < idOwnerPairs.length; i += 2) {
            byte[] id = idOwnerPairs[i].getBytes(StandardCharsets.UTF_8);
            byte[] owner = idOwnerPairs[i + 1].getBytes(StandardCharsets.UTF_8);
            b.add(id, 0, id.length, owner, 0, owner.length);
        }
        return b.build("ns");
    }

    @Test
    void cachedIdsAreAnsweredHere_theRestGoToTheStoreInOrder_andNewOnesAreCached() {
        RecordingStore store = new RecordingStore();
        NearCache cache = new NearCache(1024, () -> 1000, new SimpleMeterRegistry());
        cache.listening(true);
        NearCachedStore near = new NearCachedStore(store, cache, () -> 1000, () -> {});
        assertArrayEquals(
                new byte[] {0, 0},
                near.claim(batch("a", "o1", "b", "o1"), ClaimPolicy.window(WINDOW))
                        .toCompletableFuture()
                        .join());
        byte[] answers = near.claim(batch("a", "o1", "c", "o1", "b", "o2"), ClaimPolicy.window(WINDOW))
                .toCompletableFuture()
                .join();
        assertArrayEquals(new byte[] {1, 0, 2}, answers, "a retry, c new from the store, b duplicate");
        assertEquals(2, store.claimed.size());
        assertEquals(1, store.claimed.get(1).size(), "only c went to the store");
    }

    @Test
    void aRepeatOfAMissedId_followsItToTheStore_evenWhenTheCacheWasFilledBetweenTheTwoLookups() {
        RecordingStore store = new RecordingStore();
        AtomicInteger clockReads = new AtomicInteger();
        NearCache[] cache = new NearCache[1];
        long dKey = batch("d", "o1").key(0);
        long dOwner = batch("d", "o1").owner(0);
        // The third read of the clock is the second lookup of d: another request has just cached d.
        LongSupplier clock = () -> {
            if (clockReads.incrementAndGet() == 3) {
                cache[0].putUncounted(dKey, dOwner, 1000 + WINDOW, 1000);
            }
            return 1000;
        };
        cache[0] = new NearCache(1024, clock, new SimpleMeterRegistry());
        cache[0].listening(true); // the feed is whole: the cache answers
        cache[0].putUncounted(batch("x", "o1").key(0), batch("x", "o1").owner(0), 1000 + WINDOW, 1000);
        clockReads.set(0);
        NearCachedStore near = new NearCachedStore(store, cache[0], () -> 1000, () -> {});
        // x hits; d misses; the second d would hit the freshly cached entry but must follow the first.
        byte[] answers = near.claim(batch("x", "o1", "d", "o1", "d", "o1"), ClaimPolicy.window(WINDOW))
                .toCompletableFuture()
                .join();
        assertEquals(1, store.claimed.size());
        assertEquals(2, store.claimed.get(0).size(), "both copies of d went to the store, in order");
        assertEquals(dKey, store.claimed.get(0).key(0));
        assertEquals(dKey, store.claimed.get(0).key(1));
        assertEquals(1, answers[0], "x answered by the cache");
    }

    @Test
    void whileTheReleaseFeedIsNotWhole_everyClaimGoesToTheStore_andNothingIsCached_untilItIsWholeAgain() {
        RecordingStore store = new RecordingStore();
        NearCache cache = new NearCache(1024, () -> 1000, new SimpleMeterRegistry());
        NearCachedStore near = new NearCachedStore(store, cache, () -> 1000, () -> {});
        ClaimPolicy policy = ClaimPolicy.window(WINDOW);
        near.claim(batch("a", "o1"), policy).toCompletableFuture().join();
        near.claim(batch("a", "o1"), policy).toCompletableFuture().join();
        assertEquals(2, store.claimed.size(), "not yet told the feed is whole: both to the store");
        assertEquals(0, cache.size(), "and nothing cached");

        cache.listening(true);
        near.claim(batch("a", "o1"), policy).toCompletableFuture().join();
        near.claim(batch("a", "o1"), policy).toCompletableFuture().join();
        assertEquals(3, store.claimed.size(), "the first went to the store, its repeat was answered here");

        cache.listening(false);
        assertEquals(0, cache.size(), "a lost feed clears the cache");
        near.claim(batch("a", "o1"), policy).toCompletableFuture().join();
        assertEquals(4, store.claimed.size(), "and sends every claim to the store");
        assertEquals(0, cache.size());
    }

    @Test
    void aReleaseHeardWhileTheClaimWasAtTheStore_keepsItsAnswersOutOfTheCache() {
        RecordingStore store = new RecordingStore();
        NearCache cache = new NearCache(1024, () -> 1000, new SimpleMeterRegistry());
        cache.listening(true);
        NearCachedStore near = new NearCachedStore(store, cache, () -> 1000, () -> {});
        ClaimPolicy policy = ClaimPolicy.window(WINDOW);
        long a = batch("a", "o1").key(0);
        // another agent released a right after this claim wrote it; the release is heard before the answer
        store.whileAtTheStore = () -> cache.released(a >>> 8);
        near.claim(batch("a", "o1", "b", "o1"), policy).toCompletableFuture().join();
        assertEquals(0, cache.size(), "neither a nor b cached: the release may have been of either");

        near.claim(batch("a", "o2"), policy).toCompletableFuture().join();
        assertEquals(2, store.claimed.size(), "another owner's a goes to the store, which knows it was released");
        near.claim(batch("c", "o1"), policy).toCompletableFuture().join();
        near.claim(batch("c", "o1"), policy).toCompletableFuture().join();
        assertEquals(3, store.claimed.size(), "a claim with nothing heard meanwhile is cached as before");
    }

    @Test
    void aFeedLostAndBackWhileTheClaimWasAtTheStore_keepsItsAnswersOutOfTheCache() {
        RecordingStore store = new RecordingStore();
        NearCache cache = new NearCache(1024, () -> 1000, new SimpleMeterRegistry());
        cache.listening(true);
        NearCachedStore near = new NearCachedStore(store, cache, () -> 1000, () -> {});
        store.whileAtTheStore = () -> {
            cache.listening(false); // releases made now go unseen
            cache.listening(true);
        };
        near.claim(batch("a", "o1"), ClaimPolicy.window(WINDOW))
                .toCompletableFuture()
                .join();
        assertEquals(0, cache.size());
    }
}
