package dev.dedup.benchmarks.jmh;

import dev.dedup.codec.Batch;
import dev.dedup.codec.BinaryBatchDecoder;
import dev.dedup.codec.JsonBatchDecoder;
import dev.dedup.wire.BatchEncoder;
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
 * One request body of {@code items} items decoded into a {@link Batch}: validation, and a 128-bit
 * fingerprint of every id and a 64-bit one of every owner. Divide the score by {@code items} for the cost
 * per id. Run: {@code java -cp loadtest/jmh/target/dedup-benchmarks.jar org.openjdk.jmh.Main DecodeBenchmark}.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class DecodeBenchmark {

    @Param({"1000", "10000"})
    int items;

    private byte[] binary;
    private byte[] json;

    @Setup
    public void encode() {
        binary = BatchEncoder.binary("loadtest", Bodies.items(items, 0));
        json = BatchEncoder.json("loadtest", Bodies.items(items, 0));
    }

    @Benchmark
    public Batch binary() {
        return BinaryBatchDecoder.decode(binary, items);
    }

    @Benchmark
    public Batch json() {
        return JsonBatchDecoder.decode(json, items);
    }
}
