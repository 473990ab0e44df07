package dev.dedup.benchmarks.jmh;

import dev.dedup.routing.JumpHash;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Routing one id: its route fingerprint to one of 16,384 buckets, and the bucket to a shard by jump hash
 * ({@code shards} of them; jump hash's loop runs about ln(shards) times). Per id, in nanoseconds. Run:
 * {@code java -cp loadtest/jmh/target/dedup-benchmarks.jar org.openjdk.jmh.Main RoutingBenchmark}.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class RoutingBenchmark {

    private static final int BUCKETS = 16_384;
    private static final int ROUTES = 4096;

    @Param({"3", "64"})
    int shards;

    private final long[] routes = new long[ROUTES];
    private int next;

    @Setup
    public void routes() {
        SplittableRandom random = new SplittableRandom(1);
        for (int i = 0; i < ROUTES; i++) {
            routes[i] = random.nextLong();
        }
    }

    @Benchmark
    public int bucketAndShard() {
        long route = routes[next++ & (ROUTES - 1)];
        int bucket = (int) Long.remainderUnsigned(route, BUCKETS);
        return JumpHash.shard(bucket, shards);
    }
}
