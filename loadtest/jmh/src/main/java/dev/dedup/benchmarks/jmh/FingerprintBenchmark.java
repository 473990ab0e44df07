package dev.dedup.benchmarks.jmh;

import com.dynatrace.hash4j.hashing.HashValue128;
import dev.dedup.fingerprint.Fingerprints;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The fingerprint of one id (XXH3-128: the 64-bit key and the 64-bit route) for a 36-byte UUID string and a
 * 16-byte binary id, and the 64-bit fingerprint of one owner. Per id, in nanoseconds. Run: {@code java -cp
 * loadtest/jmh/target/dedup-benchmarks.jar org.openjdk.jmh.Main FingerprintBenchmark}.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class FingerprintBenchmark {

    private static final int IDS = 1024;

    private final byte[][] uuids = new byte[IDS][];
    private final byte[][] binary = new byte[IDS][];
    private final byte[][] owners = new byte[IDS][];
    private int next;

    @Setup
    public void ids() {
        for (int i = 0; i < IDS; i++) {
            String id = Bodies.items(IDS, 0).get(i).id();
            uuids[i] = id.getBytes(StandardCharsets.US_ASCII);
            binary[i] = java.util.Arrays.copyOf(uuids[i], 16);
            owners[i] = ("p" + (i % 16) + ":" + (81418110694L + i)).getBytes(StandardCharsets.US_ASCII);
        }
    }

    @Benchmark
    public long uuidString36() {
        byte[] id = uuids[next++ & (IDS - 1)];
        HashValue128 h = Fingerprints.id(id, 0, id.length);
        return Fingerprints.key(h) ^ Fingerprints.route(h);
    }

    @Benchmark
    public long binaryId16() {
        byte[] id = binary[next++ & (IDS - 1)];
        HashValue128 h = Fingerprints.id(id, 0, id.length);
        return Fingerprints.key(h) ^ Fingerprints.route(h);
    }

    @Benchmark
    public long owner() {
        byte[] owner = owners[next++ & (IDS - 1)];
        return Fingerprints.owner(owner, 0, owner.length);
    }
}
