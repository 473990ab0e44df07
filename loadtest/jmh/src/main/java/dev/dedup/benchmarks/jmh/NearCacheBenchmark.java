package dev.dedup.benchmarks.jmh;

import dev.dedup.agent.nearcache.NearCache;
import dev.dedup.agent.nearcache.NearCachedStore;
import dev.dedup.agent.store.ClaimPolicy;
import dev.dedup.codec.Batch;
import dev.dedup.codec.BinaryBatchDecoder;
import dev.dedup.wire.BatchEncoder;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.concurrent.TimeUnit;
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
import org.openjdk.jmh.annotations.Warmup;

/**
 * The near-cache in front of a store, per id of a 1,000-id batch: {@code hits} answers a batch whose ids
 * are all cached (a retried task), {@code insertsOfNewIds} sends a batch of fresh ids to a store that
 * answers them all {@code new} at once and caches them (a cold stream; the store itself costs nothing
 * here). The cache holds {@code entries} ids, 16 bytes each, so the larger sizes pay a cache miss per id.
 * The cache alone, per lookup and per put: {@code dev.dedup.agent.nearcache.NearCacheGetPutBenchmark}. Run:
 * {@code java -cp loadtest/jmh/target/dedup-benchmarks.jar org.openjdk.jmh.Main NearCacheBenchmark}.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = "-Xmx3g")
public class NearCacheBenchmark {

    private static final int BATCH = 1000;
    private static final int BATCHES = 256;
    /** 8 Mi fresh ids: twice the largest cache, so an id has been evicted by the time it comes round. */
    private static final int FRESH_BATCHES = 8192;

    private static final ClaimPolicy POLICY = ClaimPolicy.window(TimeUnit.HOURS.toMillis(24));

    @Param({"262144", "4194304"})
    long entries;

    private NearCachedStore store;
    private Batch[] cached;
    private Batch[] fresh;
    private int nextHit;
    private int nextFresh;

    @Setup
    public void fill() {
        long now = System.currentTimeMillis();
        NearCache cache = new NearCache(entries, () -> now, new SimpleMeterRegistry());
        cache.listening(true); // as a subscribed release feed tells it
        store = new NearCachedStore(new AllNewStore(), cache, () -> now, () -> {});
        cached = new Batch[BATCHES];
        fresh = new Batch[FRESH_BATCHES];
        for (int b = 0; b < FRESH_BATCHES; b++) {
            fresh[b] = BinaryBatchDecoder.decode(BatchEncoder.binary("jmh", Bodies.items(BATCH, 1000 + b)), BATCH);
            store.claim(fresh[b], POLICY).toCompletableFuture().join(); // fills the table
        }
        for (int b = 0; b < BATCHES; b++) {
            cached[b] = BinaryBatchDecoder.decode(BatchEncoder.binary("jmh", Bodies.items(BATCH, 10 + b)), BATCH);
            store.claim(cached[b], POLICY).toCompletableFuture().join();
        }
    }

    @Benchmark
    @OperationsPerInvocation(BATCH)
    public byte[] hits() {
        return store.claim(cached[nextHit++ & (BATCHES - 1)], POLICY)
                .toCompletableFuture()
                .join();
    }

    @Benchmark
    @OperationsPerInvocation(BATCH)
    public byte[] insertsOfNewIds() {
        // 8 Mi ids in turn: by the time one comes round, 8 Mi later ids have pushed it out (mostly).
        return store.claim(fresh[nextFresh++ & (FRESH_BATCHES - 1)], POLICY)
                .toCompletableFuture()
                .join();
    }
}
