package dev.dedup.agent.nearcache;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
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
import org.openjdk.jmh.annotations.Warmup;

/**
 * The near-cache itself, per id, as {@link NearCachedStore} drives it (a batch of 1,000 lookups or puts
 * through one {@link NearCache.BatchPages}, then the batch's counts recorded once), without the pass that
 * touches a batch's sets before (so each operation here pays its own wait for memory): {@code getHit} looks up ids put recently (all cached),
 * {@code getMiss} ids never put, {@code putNew} enters fresh ids, each replacing a live claim since the
 * cache was filled with twice its size first (a long cold stream). The cache holds {@code entries} ids on
 * the real clock with claims of 24 hours. In this package, as Caffeine's {@code GetPutBenchmark} sits in
 * its cache's. Run: {@code java -cp loadtest/jmh/target/dedup-benchmarks.jar org.openjdk.jmh.Main
 * NearCacheGetPutBenchmark -t 1} (then {@code -t 2}: threads share the cache, each with its own ids).
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = "-Xmx3g")
public class NearCacheGetPutBenchmark {

    static final int BATCH = 1000;
    private static final int KEYS = 1 << 20;
    private static final long CLAIM = TimeUnit.HOURS.toMillis(24);
    private static final long FILL_STREAM = 1L << 62;
    private static final long MISS_STREAM = 3L << 61;

    @Param({"4194304"})
    long entries;

    private final LongSupplier clock = System::currentTimeMillis;
    private final AtomicInteger threads = new AtomicInteger();
    private NearCache cache;
    private long[] hitKeys;
    private long[] missKeys;

    /** A fresh id's key: never 0, like a salted fingerprint. */
    static long key(long id) {
        long z = id;
        z = (z ^ (z >>> 30)) * 0xbf58476d1ce4e5b9L;
        z = (z ^ (z >>> 27)) * 0x94d049bb133111ebL;
        return (z ^ (z >>> 31)) | 1;
    }

    @Setup
    public void fill() {
        cache = new NearCache(entries, clock, new SimpleMeterRegistry());
        long filled = 2 * entries;
        long now = clock.getAsLong();
        for (long i = 0; i < filled; i += BATCH) {
            puts(FILL_STREAM + i, now);
        }
        hitKeys = new long[KEYS];
        missKeys = new long[KEYS];
        int kept = 0;
        for (int i = 0; i < KEYS; i++) {
            hitKeys[i] = key(FILL_STREAM + filled - KEYS + i);
            missKeys[i] = key(MISS_STREAM + i);
            kept += cache.lookup(hitKeys[i], hitKeys[i]) != NearCache.MISS ? 1 : 0;
        }
        if (kept < 0.99 * KEYS) {
            throw new IllegalStateException("only " + kept + " of the last " + KEYS + " ids put are cached");
        }
    }

    private int puts(long firstId, long now) {
        long[] keys = new long[BATCH];
        long[] owners = new long[BATCH];
        long[] ends = new long[BATCH];
        for (int j = 0; j < BATCH; j++) {
            long k = key(firstId + j);
            keys[j] = k;
            owners[j] = k;
            ends[j] = now + CLAIM;
        }
        cache.putAll(keys, owners, ends, BATCH, now);
        return (int) keys[BATCH - 1];
    }

    /** Where each thread is in the keys, and the fresh ids it puts (a stream of its own). */
    @State(Scope.Thread)
    public static class Cursor {
        int next;
        long nextId;

        @Setup
        public void start(NearCacheGetPutBenchmark b) {
            int t = b.threads.getAndIncrement();
            next = t * (KEYS / 2);
            nextId = (t + 1L) << 56;
        }
    }

    @Benchmark
    @OperationsPerInvocation(BATCH)
    public int getHit(Cursor c) {
        return lookups(hitKeys, c);
    }

    @Benchmark
    @OperationsPerInvocation(BATCH)
    public int getMiss(Cursor c) {
        return lookups(missKeys, c);
    }

    private int lookups(long[] keys, Cursor c) {
        int at = c.next;
        int hits = 0;
        NearCache.BatchPages pages = cache.batchPages();
        for (int j = 0; j < BATCH; j++) {
            long k = keys[(at + j) & (KEYS - 1)];
            hits += pages.lookup(k, k) != NearCache.MISS ? 1 : 0;
        }
        c.next = (at + BATCH) & (KEYS - 1);
        cache.recordLookups(hits, BATCH - hits);
        return hits;
    }

    @Benchmark
    @OperationsPerInvocation(BATCH)
    public int putNew(Cursor c) {
        int replaced = puts(c.nextId, clock.getAsLong());
        c.nextId += BATCH;
        return replaced;
    }
}
