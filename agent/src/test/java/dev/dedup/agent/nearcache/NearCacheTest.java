package dev.dedup.agent.nearcache;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dedup.agent.testing.FakeClock;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

class NearCacheTest {

    private final FakeClock clock = new FakeClock(1_000_000);
    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();

    private NearCache cache(long entries) {
        return new NearCache(entries, clock, registry);
    }

    /** Enters a claim and counts it, as {@link NearCachedStore} does for a batch. */
    private void put(NearCache cache, long key, long owner, long expiresAtMillis) {
        int filled = cache.putUncounted(key, owner, expiresAtMillis, clock.getAsLong());
        cache.recordPuts(1, filled & 1, filled >>> 1);
    }

    /** Whether a live claim of {@code key} is cached, whoever owns it. */
    private static boolean cached(NearCache cache, long key) {
        return cache.lookup(key, 0) != NearCache.MISS;
    }

    @Test
    void aPutClaimIsFound_withItsOwner_andOnlyByItsWholeKey() {
        NearCache cache = cache(1024);
        long key = 0x1234_5678_9abc_def0L;
        put(cache, key, 42, clock.getAsLong() + 1000);
        assertEquals(NearCache.SAME_OWNER, cache.lookup(key, 42));
        assertEquals(NearCache.OTHER_OWNER, cache.lookup(key, 43));
        assertEquals(NearCache.MISS, cache.lookup(key ^ 1, 42), "same 56-bit field, other key: not a hit");
        assertEquals(NearCache.MISS, cache.lookup(key + (1L << 8), 42));
        cache.recordLookups(2, 2);
        assertEquals(2, cache.hits());
        assertEquals(2, cache.misses());
        assertEquals(2.0 / 4, cache.hitRatio());
        assertEquals(1, cache.size());
    }

    @Test
    void anEndedClaimIsNotAnswered_andItsSlotIsReusedFirst() {
        NearCache cache = cache(8); // one set
        for (long k = 1; k <= 8; k++) {
            put(cache, k << 8, k, clock.getAsLong() + (k == 3 ? 100 : 10_000));
        }
        clock.advance(java.time.Duration.ofMillis(100));
        assertFalse(cached(cache, 3L << 8), "claim ended");
        put(cache, 9L << 8, 9, clock.getAsLong() + 10_000);
        for (long k = 1; k <= 9; k++) {
            if (k != 3) {
                assertTrue(cached(cache, k << 8), "id " + k + " kept: the ended claim's slot was taken");
            }
        }
        assertEquals(0, cache.evictions());
    }

    @Test
    void aFullSetForgetsItsOldestEntry() {
        NearCache cache = cache(8);
        for (long k = 1; k <= 10; k++) {
            put(cache, k << 8, k, clock.getAsLong() + 10_000);
        }
        assertFalse(cached(cache, 1L << 8));
        assertFalse(cached(cache, 2L << 8));
        for (long k = 3; k <= 10; k++) {
            assertTrue(cached(cache, k << 8), "id " + k);
        }
        assertEquals(2, cache.evictions());
        assertEquals(8, cache.size());
    }

    @Test
    void putOfTheSameIdReplacesIt_andInvalidateByFieldDropsIt() {
        NearCache cache = cache(64);
        long key = 0xabcdef0123456789L;
        put(cache, key, 1, clock.getAsLong() + 1000);
        put(cache, key, 2, clock.getAsLong() + 1000);
        assertEquals(1, cache.size());
        assertEquals(NearCache.SAME_OWNER, cache.lookup(key, 2));
        cache.invalidateField(key >>> 8);
        assertFalse(cached(cache, key));
        assertEquals(0, cache.size());
    }

    @Test
    void invalidateAll_emptiesEverySet() {
        NearCache cache = cache(1 << 14);
        SplittableRandom random = new SplittableRandom(1);
        List<Long> keys = new ArrayList<>();
        for (int i = 0; i < 5000; i++) {
            long k = random.nextLong() | 1;
            keys.add(k);
            put(cache, k, i, clock.getAsLong() + 1000);
        }
        assertTrue(cache.size() > 4900, "a table of 16 Ki keeps nearly all of 5,000: " + cache.size());
        cache.invalidateAll();
        assertEquals(0, cache.size());
        for (long k : keys) {
            assertFalse(cached(cache, k));
        }
    }

    @Test
    void retention_aTableKeepsNearlyAllOfTheLastHalfOfItsSize() {
        int entries = 1 << 16;
        NearCache cache = cache(entries);
        SplittableRandom random = new SplittableRandom(2);
        long[] keys = new long[entries];
        for (int i = 0; i < entries; i++) {
            keys[i] = random.nextLong() | 1;
            put(cache, keys[i], i, clock.getAsLong() + 1000);
        }
        int kept = 0;
        for (int i = entries / 2; i < entries; i++) {
            kept += cached(cache, keys[i]) ? 1 : 0;
        }
        // 8-way FIFO sets: the newest half survives unless its set received 8 later ids (Poisson tail).
        assertTrue(kept > 0.97 * entries / 2, "kept " + kept + " of the newest " + entries / 2);
    }

    @Test
    void concurrentPutsAndLookups_neverPairAKeyWithAnotherClaimsOwner() throws Exception {
        NearCache cache = cache(1 << 10);
        AtomicReference<String> wrong = new AtomicReference<>();
        List<Thread> threads = new ArrayList<>();
        for (int t = 0; t < 4; t++) {
            threads.add(new Thread(putsAndLookups(cache, t, 200_000, 5000, 2, wrong)));
        }
        runAll(threads);
        assertNull(wrong.get());
    }

    @Test
    void sizesOutsideTheRangeAreRefused_andACacheIsRoundedDownToWholeSetsSpreadOverItsPages() {
        assertThrows(IllegalArgumentException.class, () -> cache(7));
        assertEquals(96, cache(100).capacity(), "one page of 12 sets");
        NearCache twoPages = cache(NearCache.SETS_PER_PAGE * NearCache.WAYS + 800);
        assertEquals(2 * 1074 * NearCache.WAYS, twoPages.capacity(), "2,148 sets in 2 pages of 1,074");
        assertEquals(1L << 22, cache(1L << 22).capacity());
    }

    @Test
    void pagesAreMadeWhenAClaimFirstFallsIntoThem_neverMoreThanTheBoundHolds() {
        int pages = 8;
        NearCache cache = cache((long) pages * NearCache.SETS_PER_PAGE * NearCache.WAYS);
        assertEquals(0, cache.pages(), "nothing allocated before the first claim");
        put(cache, 5L << 8, 1, clock.getAsLong() + 1000);
        assertEquals(1, cache.pages());
        SplittableRandom random = new SplittableRandom(3);
        for (long i = 0; i < 4 * cache.capacity(); i++) {
            put(cache, random.nextLong() | 1, i, clock.getAsLong() + 1000);
        }
        assertEquals(pages, cache.pages());
        assertTrue(cache.evictions() > 0, "a full cache replaces live claims");
        assertTrue(cache.size() > 0.97 * cache.capacity(), "nearly every slot taken: " + cache.size());
        assertTrue(cache.size() <= cache.capacity());
    }

    @Test
    void theLostChannelClear_emptiesThePagesInPlace_andMakesNoNewOnes() {
        NearCache cache = cache(1 << 16);
        for (long k = 1; k <= 1000; k++) {
            put(cache, k * 0x9E3779B97F4A7C15L | 1, k, clock.getAsLong() + 1000);
        }
        long pages = cache.pages();
        assertTrue(pages > 0);
        cache.listening(false);
        assertEquals(0, cache.size());
        assertEquals(pages, cache.pages(), "emptied in place, still in the cache");
        for (long k = 1; k <= 1000; k++) {
            assertEquals(NearCache.MISS, cache.lookup(k * 0x9E3779B97F4A7C15L | 1, k), "id " + k + " cleared");
        }
        for (long k = 1; k <= 1000; k++) {
            put(cache, k * 0x9E3779B97F4A7C15L | 1, k, clock.getAsLong() + 1000);
        }
        assertEquals(pages, cache.pages(), "the pages were reused");
        assertEquals(1000, cache.size());
        long key = 0x0123_4567_89ab_cdefL;
        put(cache, key, 7, clock.getAsLong() + 1000);
        assertEquals(NearCache.SAME_OWNER, cache.lookup(key, 7));
    }

    @Test
    void aBatchsView_answersAsTheCacheDoes_evenAcrossTheLostChannelClear() {
        NearCache cache = cache(1 << 17); // 8 pages
        long[] keys = new long[2000];
        for (int i = 0; i < keys.length; i++) {
            keys[i] = (i + 1L) * 0x9E3779B97F4A7C15L | 1;
        }
        int half = keys.length / 2;
        long[] owners = new long[half];
        long[] ends = new long[half];
        for (int i = 0; i < half; i++) {
            owners[i] = i;
            ends[i] = clock.getAsLong() + 1000;
        }
        cache.putAll(Arrays.copyOf(keys, half), owners, ends, half, clock.getAsLong());
        assertEquals(half, cache.size(), "a batch's puts, page by page, each into an empty slot");
        NearCache.BatchPages lookups = cache.batchPages();
        for (int i = 0; i < keys.length; i++) {
            int expected = i < keys.length / 2 ? NearCache.SAME_OWNER : NearCache.MISS;
            assertEquals(expected, lookups.lookup(keys[i], i), "id " + i);
            assertEquals(expected, cache.lookup(keys[i], i));
        }
        cache.listening(false); // the pages both views hold are emptied
        for (int i = 0; i < keys.length / 2; i++) {
            assertEquals(NearCache.MISS, lookups.lookup(keys[i], i), "id " + i + " cleared");
        }
        cache.putAll(Arrays.copyOf(keys, half), owners, ends, half, clock.getAsLong());
        for (int i = 0; i < half; i++) {
            assertEquals(NearCache.SAME_OWNER, cache.lookup(keys[i], i), "id " + i + " cached again");
        }
        assertEquals(half, cache.size());
        assertEquals(8, cache.pages());
    }

    @Test
    void aFullSet_dropsTheFirstEndedClaim_elseItsOldest_andARelease_leavesItsSlotAtTheEnd() {
        Page page = new Page(1);
        for (long k = 1; k <= Page.WAYS; k++) {
            assertEquals(Page.INTO_EMPTY, page.put(0, k << 8, k, 100 + k, 50));
        }
        assertEquals(Page.EVICTED, page.put(0, 9L << 8, 9, 200, 50), "full, nothing ended: the oldest goes");
        assertEquals(Page.MISS, page.lookup(0, 1L << 8, 1, 50));
        for (long k = 2; k <= 9; k++) {
            assertEquals(Page.SAME_OWNER, page.lookup(0, k << 8, k, 50), "id " + k);
        }
        assertEquals(0, page.put(0, 10L << 8, 10, 200, 104), "claims 2 to 4 ended by second 104: the first goes");
        assertEquals(Page.MISS, page.lookup(0, 2L << 8, 2, 50));
        assertEquals(Page.SAME_OWNER, page.lookup(0, 3L << 8, 3, 50));
        assertEquals(1, page.invalidate(0, 5));
        assertEquals(Page.INTO_EMPTY, page.put(0, 11L << 8, 11, 200, 50), "the released slot is free again");
        assertEquals(Page.EVICTED, page.put(0, 12L << 8, 12, 200, 50));
        assertEquals(Page.MISS, page.lookup(0, 3L << 8, 3, 50), "the oldest left, in the order they came");
        for (long k : new long[] {4, 6, 7, 8, 9, 10, 11, 12}) {
            assertEquals(Page.SAME_OWNER, page.lookup(0, k << 8, k, 50), "id " + k);
        }
    }

    @Test
    void theCachesOwnerTag_isTheLow32BitsOfTheFingerprint_whichTheRedisTagsAreTakenFrom() {
        Page page = new Page(1);
        long owner = 0x1234_5678_9abc_def0L;
        page.put(0, 7L << 8, owner, 200, 50);
        assertEquals(Page.SAME_OWNER, page.lookup(0, 7L << 8, owner ^ (1L << 40), 50), "the high bits are not kept");
        assertEquals(Page.OTHER_OWNER, page.lookup(0, 7L << 8, owner ^ 1, 50));
        assertEquals(Page.MISS, page.lookup(0, 7L << 8, owner, 200), "ended at second 200");
    }

    @Test
    void aRetiredPage_answersNothing_andRefusesPuts() {
        Page page = new Page(4);
        page.put(1, 9L << 8, 1, 2000, 1000);
        assertEquals(Page.SAME_OWNER, page.lookup(1, 9L << 8, 1, 1000));
        assertEquals(1, page.retire(), "it held one entry");
        assertEquals(Page.MISS, page.lookup(1, 9L << 8, 1, 1000));
        assertEquals(Page.RETIRED, page.put(1, 10L << 8, 1, 2000, 1000));
    }

    @Test
    void clearsDuringPutsAndLookups_leaveTheSizeEqualToTheEntriesHeld_andNeverPairAKeyWithAnotherOwner()
            throws Exception {
        NearCache cache = cache(1 << 15);
        AtomicReference<String> wrong = new AtomicReference<>();
        List<Thread> threads = new ArrayList<>();
        for (int t = 0; t < 3; t++) {
            threads.add(new Thread(putsAndLookups(cache, t, 300_000, 50_000, 3, wrong)));
        }
        threads.add(new Thread(() -> {
            for (int i = 0; i < 200 && wrong.get() == null; i++) {
                cache.listening(false);
                Thread.yield();
            }
        }));
        runAll(threads);
        assertNull(wrong.get());
        long held = 0;
        for (long k = 1; k <= 50_000; k++) {
            held += cached(cache, k * 0x9E3779B97F4A7C15L | 1) ? 1 : 0;
        }
        assertEquals(held, cache.size(), "the size gauge counts exactly the entries held");
    }

    @Test
    void metricsCarryTheCaffeineBindersNames_countingIds() {
        NearCache cache = cache(8); // one set
        for (long k = 1; k <= 10; k++) {
            put(cache, k << 8, k, clock.getAsLong() + 1000);
        }
        cache.recordLookups(3, 2);
        assertEquals(
                3.0,
                registry.get("cache.gets")
                        .tag("cache", "near_cache")
                        .tag("result", "hit")
                        .counter()
                        .count());
        assertEquals(
                2.0,
                registry.get("cache.gets")
                        .tag("cache", "near_cache")
                        .tag("result", "miss")
                        .counter()
                        .count());
        assertEquals(10.0, registry.get("cache.puts").functionCounter().count());
        assertEquals(8.0, registry.get("cache.size").gauge().value(), "ids held, not pages");
        assertEquals(
                2.0,
                registry.get("cache.evictions").tag("cause", "SIZE").summary().totalAmount(),
                "two live claims replaced");
        assertEquals(3.0 / 5, cache.hitRatio());
    }

    /**
     * A thread's work: {@code rounds} times, with one chance in {@code putOneIn} a put, else a lookup, of one of
     * {@code keys} ids, each always with the same owner; a lookup that pairs a key with another owner is noted
     * in {@code wrong}.
     */
    private Runnable putsAndLookups(
            NearCache cache, int seed, int rounds, int keys, int putOneIn, AtomicReference<String> wrong) {
        return () -> {
            SplittableRandom random = new SplittableRandom(seed);
            for (int i = 0; i < rounds && wrong.get() == null; i++) {
                long key = (random.nextInt(keys) + 1L) * 0x9E3779B97F4A7C15L | 1;
                long owner = key * 31; // every writer of a key writes the same owner
                if (random.nextInt(putOneIn) == 0) {
                    put(cache, key, owner, clock.getAsLong() + 10_000);
                } else if (cache.lookup(key, owner) == NearCache.OTHER_OWNER) {
                    wrong.set("key " + key + " answered with another claim's owner");
                }
            }
        };
    }

    private static void runAll(List<Thread> threads) throws InterruptedException {
        threads.forEach(Thread::start);
        for (Thread t : threads) {
            t.join();
        }
    }
}
