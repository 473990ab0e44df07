package dev.dedup.benchmarks.jmh;

import dev.dedup.agent.config.NearCacheOptions;
import dev.dedup.agent.nearcache.NearCache;
import dev.dedup.agent.nearcache.NearCachedStore;
import dev.dedup.agent.store.ClaimPolicy;
import dev.dedup.codec.Batch;
import dev.dedup.codec.BinaryBatchDecoder;
import dev.dedup.wire.BatchEncoder;
import dev.dedup.wire.Item;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The near-cache's miss path, per id of a 1,000-id batch: one operation is one id of a {@link
 * NearCachedStore#claim} of 1,000 ids (the figure is the batch's time divided by 1,000), with the cache at the
 * agent's default size ({@link NearCacheOptions#DEFAULT_MAX_ENTRIES}, 1 Mi ids) and already full, so that
 * every put replaces a live claim (the steady state). {@code missOnly}: all 1,000 ids are fresh, so each is
 * looked up and missed, the whole batch goes to the store, is answered {@code new} and each id is put.
 * {@code mixed}: 500 of the ids are repeats, in a shuffled order, of ids claimed 64 batches (32,000 fresh ids)
 * before, still cached and answered {@code retry} from it (a retried task); the other 500 are fresh and go to
 * the store as a sub-batch. Fresh ids come from a ring of 8,192,000, 7.8 times the cache, so each one was
 * pushed out long before it comes round; the tear-down checks that the store was asked for exactly the fresh
 * ids, no more and no fewer.
 *
 * <p>The store is in memory and answers every item {@code new} at once (a completed future): this isolates
 * the agent's own work in front of the store (lookups, the sub-batch, the puts and their bookkeeping), not
 * Redis, whose round trip is what a hit saves. {@code clock} is {@code wall} for {@code
 * System::currentTimeMillis}, the clock {@code Agent.start} gives the cache, or {@code fixed} for a constant,
 * as {@link NearCacheBenchmark} uses (the cache reads the clock once per id looked up). Hits alone, and this
 * miss path at other sizes and a fixed clock: {@link NearCacheBenchmark}. Run: {@code java -cp
 * loadtest/jmh/target/dedup-benchmarks.jar org.openjdk.jmh.Main NearCacheMissBenchmark -f 1 -wi 3 -i 5};
 * beside the hits at the same size, with the bytes allocated per id: {@code java -cp
 * loadtest/jmh/target/dedup-benchmarks.jar org.openjdk.jmh.Main 'NearCacheMissBenchmark|NearCacheBenchmark'
 * -f 1 -wi 3 -i 5 -p entries=1048576 -prof gc}.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = "-Xmx3g")
public class NearCacheMissBenchmark {

    private static final int BATCH = 1000;
    /**
     * Fresh ids in a ring: 8,192,000, 7.8 times the default cache, so none is still cached when it comes round
     * (its set has had some 62 puts since). 8,192 batches of 1,000 or 16,384 of 500: a power of two of batches.
     */
    private static final int FRESH_BATCHES_OF_1000 = 8192;
    /** How many batches before its first claim a repeat in {@code mixed} comes. */
    private static final int LAG = 64;

    private static final ClaimPolicy POLICY = ClaimPolicy.window(TimeUnit.HOURS.toMillis(24));

    /** Streams of ids ({@link Bodies#items}) of their own, apart from those of the other benchmarks. */
    private static final int MISS_STREAMS = 100_000;

    private static final int MIXED_STREAMS = 200_000;

    /** The clock, shared by both cases. */
    @State(Scope.Benchmark)
    public static class Clock {
        @Param({"wall", "fixed"})
        String clock;

        LongSupplier millis;

        @Setup
        public void choose() {
            long now = System.currentTimeMillis();
            millis = switch (clock) {
                case "wall" -> System::currentTimeMillis;
                case "fixed" -> () -> now;
                default -> throw new IllegalArgumentException("clock: wall or fixed, not " + clock);
            };
        }
    }

    /**
     * A default-size cache in front of {@link AllNewStore}, filled by one lap of {@code ring}, and the next batch
     * to claim; {@code freshPerBatch} of each batch's ids must reach the store.
     */
    abstract static class Ring {
        final AllNewStore allNew = new AllNewStore();
        NearCache cache;
        NearCachedStore store;
        Batch[] ring;
        int next;
        long claims;

        abstract int freshPerBatch();

        abstract Batch[] batches();

        void fill(Clock clock) {
            cache = new NearCache(NearCacheOptions.DEFAULT_MAX_ENTRIES, clock.millis, new SimpleMeterRegistry());
            cache.listening(true); // as a subscribed release feed tells it
            store = new NearCachedStore(allNew, cache, clock.millis, () -> {});
            ring = batches();
            if (Integer.bitCount(ring.length) != 1) {
                throw new IllegalStateException("a ring of " + ring.length + " batches: not a power of two");
            }
            for (Batch batch : ring) {
                store.claim(batch, POLICY).toCompletableFuture().join();
            }
            if (cache.size() != cache.capacity() || cache.evictions() == 0) {
                throw new IllegalStateException("not full after a lap: " + cache.size() + " of " + cache.capacity()
                        + " slots, " + cache.evictions() + " evictions");
            }
            allNew.items = 0;
        }

        byte[] claim() {
            claims++;
            return store.claim(ring[next++ & (ring.length - 1)], POLICY)
                    .toCompletableFuture()
                    .join();
        }

        /** Every fresh id missed and went to the store, and no repeat did. */
        void check() {
            long expected = claims * freshPerBatch();
            if (allNew.items != expected) {
                throw new IllegalStateException(
                        "the store was asked for " + allNew.items + " ids in " + claims + " batches, not " + expected);
            }
        }
    }

    /** Batches of 1,000 fresh ids. */
    @State(Scope.Benchmark)
    public static class MissOnly extends Ring {
        @Override
        int freshPerBatch() {
            return BATCH;
        }

        @Override
        Batch[] batches() {
            Batch[] batches = new Batch[FRESH_BATCHES_OF_1000];
            for (int b = 0; b < batches.length; b++) {
                batches[b] = decode(Bodies.items(BATCH, MISS_STREAMS + b));
            }
            return batches;
        }

        @Setup
        public void setUp(Clock clock) {
            fill(clock);
        }

        @TearDown
        public void tearDown() {
            check();
        }
    }

    /** Batches of 500 fresh ids and 500 repeats of the fresh ids of the batch {@link #LAG} before, shuffled. */
    @State(Scope.Benchmark)
    public static class Mixed extends Ring {
        private static final int HALF = BATCH / 2;

        @Override
        int freshPerBatch() {
            return HALF;
        }

        @Override
        Batch[] batches() {
            Batch[] batches = new Batch[FRESH_BATCHES_OF_1000 * (BATCH / HALF)];
            for (int b = 0; b < batches.length; b++) {
                // the first lap's first repeats are of the lap's last batches: misses then, cached after
                List<Item> items = new ArrayList<>(BATCH);
                items.addAll(Bodies.items(HALF, MIXED_STREAMS + b));
                items.addAll(Bodies.items(HALF, MIXED_STREAMS + Math.floorMod(b - LAG, batches.length)));
                Collections.shuffle(items, new Random(b));
                batches[b] = decode(items);
            }
            return batches;
        }

        @Setup
        public void setUp(Clock clock) {
            fill(clock);
        }

        @TearDown
        public void tearDown() {
            check();
        }
    }

    private static Batch decode(List<Item> items) {
        return BinaryBatchDecoder.decode(BatchEncoder.binary("jmh", items), items.size());
    }

    @Benchmark
    @OperationsPerInvocation(BATCH)
    public byte[] missOnly(MissOnly state) {
        return state.claim();
    }

    @Benchmark
    @OperationsPerInvocation(BATCH)
    public byte[] mixed(Mixed state) {
        return state.claim();
    }
}
