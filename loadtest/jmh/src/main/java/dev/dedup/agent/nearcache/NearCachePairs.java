package dev.dedup.agent.nearcache;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;

/**
 * PROTOTYPE: the variants of NearCacheGetPutBenchmark side by side in one JVM, interleaved round by round,
 * timed in thread CPU time, so that ratios hold on a machine whose load moves. Args: entries, threads,
 * rounds, variants (comma-separated: table, pages-S, pages-S-expiring, pages-S-recorded).
 */
public final class NearCachePairs {

    private static final int BATCH = 1000;
    private static final int BATCHES_PER_ROUND = 300;
    private static final int HIT_KEYS = 1 << 20;
    private static final long WINDOW = TimeUnit.HOURS.toMillis(24);

    /** One variant, with the batch loops inside so that each loop calls one class. */
    interface Variant {
        int lookups(long[] keys, int from);

        int puts(long stream, long first, long now);
    }

    static Variant table(long entries) {
        NearCache c = new NearCache(entries, System::currentTimeMillis, new SimpleMeterRegistry());
        return new Variant() {
            public int lookups(long[] keys, int from) {
                int hits = 0;
                for (int j = 0; j < BATCH; j++) {
                    long k = keys[(from + j) & (HIT_KEYS - 1)];
                    hits += c.lookup(k, k) != NearCache.MISS ? 1 : 0;
                }
                c.recordLookups(hits, BATCH - hits);
                return hits;
            }

            public int puts(long stream, long first, long now) {
                int intoEmpty = 0;
                int evicting = 0;
                long end = now + WINDOW;
                for (int j = 0; j < BATCH; j++) {
                    long key = NearCacheGetPutBenchmark.mix(stream + first + j);
                    int filled = c.putUncounted(key, key, end, now);
                    intoEmpty += filled & 1;
                    evicting += filled >>> 1;
                }
                c.recordPuts(BATCH, intoEmpty, evicting);
                return intoEmpty + evicting;
            }
        };
    }

    static Variant pages(long entries, PagedNearCache.Variant v) {
        PagedNearCache c = new PagedNearCache(entries, System::currentTimeMillis, new SimpleMeterRegistry(), v);
        return new Variant() {
            public int lookups(long[] keys, int from) {
                int hits = 0;
                for (int j = 0; j < BATCH; j++) {
                    long k = keys[(from + j) & (HIT_KEYS - 1)];
                    hits += c.lookup(k, k) != NearCache.MISS ? 1 : 0;
                }
                c.recordLookups(hits, BATCH - hits);
                return hits;
            }

            public int puts(long stream, long first, long now) {
                int intoEmpty = 0;
                int evicting = 0;
                long end = now + WINDOW;
                for (int j = 0; j < BATCH; j++) {
                    long key = NearCacheGetPutBenchmark.mix(stream + first + j);
                    int filled = c.putUncounted(key, key, end, now);
                    intoEmpty += filled & 1;
                    evicting += filled >>> 1;
                }
                c.recordPuts(BATCH, intoEmpty, evicting);
                return intoEmpty + evicting;
            }
        };
    }

    static Variant make(String name, long entries) {
        if (name.equals("table")) {
            return table(entries);
        }
        String[] parts = name.split("-");
        int sets = Integer.parseInt(parts[1]);
        boolean expiring = name.endsWith("-expiring");
        boolean recorded = name.endsWith("-recorded");
        return pages(entries, new PagedNearCache.Variant(sets, expiring, !recorded, 1));
    }

    public static void main(String[] args) throws Exception {
        long entries = Long.parseLong(args[0]);
        int threads = Integer.parseInt(args[1]);
        int rounds = Integer.parseInt(args[2]);
        List<String> names = List.of(args[3].split(","));
        Map<String, Variant> variants = new LinkedHashMap<>();
        long now = System.currentTimeMillis();
        long stream = 1L << 62;
        for (String name : names) {
            Variant v = make(name, entries);
            for (long i = 0; i < 2 * entries; i += BATCH) {
                v.puts(stream, i, now);
            }
            variants.put(name, v);
        }
        // ids put into each variant so far, all from one stream: the last HIT_KEYS of them are the hits
        long[] counters = new long[names.size()];
        Arrays.fill(counters, 2 * entries);
        long[] hitKeys = new long[HIT_KEYS];
        long[] missKeys = new long[HIT_KEYS];
        for (int i = 0; i < HIT_KEYS; i++) {
            missKeys[i] = NearCacheGetPutBenchmark.mix((3L << 61) + i);
        }
        int perThread = BATCHES_PER_ROUND * BATCH;
        String[] ops = {"getHit", "getMiss", "putNew"};
        // [variant][op][round] CPU ns per id, summed over threads / ids of all threads
        double[][][] cpu = new double[names.size()][ops.length][rounds];
        ThreadMXBean mx = ManagementFactory.getThreadMXBean();
        int warmup = 3;
        for (int round = -warmup; round < rounds; round++) {
            for (int vi0 = 0; vi0 < names.size(); vi0++) {
                int vi = Math.floorMod(vi0 + round, names.size()); // rotate who goes first
                Variant v = variants.get(names.get(vi));
                for (int i = 0; i < HIT_KEYS; i++) {
                    hitKeys[i] = NearCacheGetPutBenchmark.mix(stream + counters[vi] - HIT_KEYS + i);
                }
                long first = counters[vi];
                counters[vi] += (long) threads * perThread;
                for (int op = 0; op < ops.length; op++) {
                    long[] cpuNanos = new long[threads];
                    CyclicBarrier start = new CyclicBarrier(threads);
                    List<Thread> ts = new ArrayList<>();
                    for (int t = 0; t < threads; t++) {
                        int tt = t;
                        int o = op;
                        Thread th = new Thread(() -> {
                            try {
                                start.await();
                            } catch (Exception e) {
                                throw new IllegalStateException(e);
                            }
                            long c0 = mx.getCurrentThreadCpuTime();
                            int from = (tt * HIT_KEYS / 2) & (HIT_KEYS - 1);
                            long sink = 0;
                            for (int b = 0; b < BATCHES_PER_ROUND; b++) {
                                if (o == 0) {
                                    sink += v.lookups(hitKeys, from);
                                } else if (o == 1) {
                                    sink += v.lookups(missKeys, from);
                                } else {
                                    sink += v.puts(
                                            stream,
                                            first + (long) tt * perThread + (long) b * BATCH,
                                            System.currentTimeMillis());
                                }
                                from = (from + BATCH) & (HIT_KEYS - 1);
                            }
                            cpuNanos[tt] = mx.getCurrentThreadCpuTime() - c0 + (sink == 42 ? 1 : 0);
                        });
                        ts.add(th);
                        th.start();
                    }
                    for (Thread th : ts) {
                        th.join();
                    }
                    if (round >= 0) {
                        cpu[vi][op][round] =
                                (double) Arrays.stream(cpuNanos).sum() / (threads * BATCHES_PER_ROUND * BATCH);
                    }
                }
            }
        }
        System.out.printf(
                "entries %d, threads %d, rounds %d (medians of CPU ns per id; ratio: median of per-round ratios to %s)%n",
                entries, threads, rounds, names.get(0));
        System.out.printf("%-22s", "variant");
        for (String op : ops) {
            System.out.printf(" %10s %8s", op, "ratio");
        }
        System.out.println();
        for (int vi = 0; vi < names.size(); vi++) {
            System.out.printf("%-22s", names.get(vi));
            for (int op = 0; op < ops.length; op++) {
                double[] ratios = new double[rounds];
                for (int r = 0; r < rounds; r++) {
                    ratios[r] = cpu[vi][op][r] / cpu[0][op][r];
                }
                System.out.printf(" %10.1f %8.3f", median(cpu[vi][op]), median(ratios));
            }
            System.out.println();
        }
    }

    static double median(double[] values) {
        double[] v = values.clone();
        Arrays.sort(v);
        int n = v.length;
        return n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
    }
}
