package dev.dedup.agent.nearcache;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.concurrent.TimeUnit;
import org.openjdk.jol.info.GraphLayout;

/**
 * Heap bytes per cached id: fills a near-cache of {@code entries} ids (first argument, default 4 Mi) with
 * twice as many fresh ids, then prints what JOL finds reachable from it (pages, Caffeine's nodes and map,
 * the boxed page indexes, the meters) by class, and the total per id held. With a second argument it then
 * waits that many milliseconds, printing its pid, for a heap histogram to cross-check ({@code jcmd <pid>
 * GC.class_histogram}). Run: {@code java -Djdk.attach.allowAttachSelf=true -Djol.magicFieldOffset=true
 * -cp loadtest/jmh/target/dedup-benchmarks.jar dev.dedup.agent.nearcache.NearCacheFootprint 4194304}.
 */
public final class NearCacheFootprint {

    private NearCacheFootprint() {}

    public static void main(String[] args) throws InterruptedException {
        long entries = args.length > 0 ? Long.parseLong(args[0]) : 1L << 22;
        long now = System.currentTimeMillis();
        long end = now + TimeUnit.HOURS.toMillis(24);
        NearCache cache = new NearCache(entries, () -> now, new SimpleMeterRegistry());
        int batchIntoEmpty = 0;
        for (long i = 1; i <= 2 * entries; i++) {
            long k = NearCacheGetPutBenchmark.key(i);
            batchIntoEmpty += cache.putUncounted(k, k, end, now) & 1;
            if (i % NearCacheGetPutBenchmark.BATCH == 0) {
                cache.recordPuts(NearCacheGetPutBenchmark.BATCH, batchIntoEmpty, 0);
                batchIntoEmpty = 0;
            }
        }
        cache.recordPuts(0, batchIntoEmpty, 0);
        GraphLayout layout = GraphLayout.parseInstance(cache);
        System.out.print(layout.toFootprint());
        System.out.printf(
                "%d entries (capacity %d) in %d pages: %d ids held, %d bytes, %.2f bytes per id held%n",
                entries,
                cache.capacity(),
                cache.pages(),
                cache.size(),
                layout.totalSize(),
                (double) layout.totalSize() / cache.size());
        if (args.length > 1) {
            System.out.println("pid " + ProcessHandle.current().pid() + ": waiting " + args[1] + " ms");
            Thread.sleep(Long.parseLong(args[1]));
        }
    }
}
