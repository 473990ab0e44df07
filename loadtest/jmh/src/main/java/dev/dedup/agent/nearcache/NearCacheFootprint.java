package dev.dedup.agent.nearcache;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.concurrent.TimeUnit;
import org.openjdk.jol.info.GraphLayout;

/** PROTOTYPE: heap bytes per cached id, by JOL, after a fill of twice the capacity. */
public final class NearCacheFootprint {

    public static void main(String[] args) throws Exception {
        long entries = args.length > 0 ? Long.parseLong(args[0]) : 1L << 22;
        String impl = args.length > 1 ? args[1] : "pages";
        int sets = args.length > 2 ? Integer.parseInt(args[2]) : 8;
        long now = System.currentTimeMillis();
        long end = now + TimeUnit.HOURS.toMillis(24);
        Object root;
        long size;
        if (impl.equals("table")) {
            NearCache c = new NearCache(entries, () -> now, new SimpleMeterRegistry());
            for (long i = 0; i < 2 * entries; i++) {
                long k = NearCacheGetPutBenchmark.mix(i);
                c.putUncounted(k, k, end, now);
            }
            root = c;
            size = c.capacity();
        } else {
            PagedNearCache c = new PagedNearCache(
                    entries, () -> now, new SimpleMeterRegistry(), new PagedNearCache.Variant(sets, false, true, 1));
            int intoEmpty = 0;
            for (long i = 0; i < 2 * entries; i++) {
                long k = NearCacheGetPutBenchmark.mix(i);
                intoEmpty += c.putUncounted(k, k, end, now) & 1;
            }
            c.recordPuts(0, intoEmpty, 0);
            c.cleanUp();
            root = c;
            size = c.size();
            System.out.println("pages: " + c.pages() + ", ids held: " + c.size() + " of " + c.capacity());
        }
        GraphLayout layout = GraphLayout.parseInstance(root);
        System.out.println(layout.toFootprint().lines().limit(30).reduce("", (a, b) -> a + "\n" + b));
        System.out.printf(
                "%s, %d entries, %d sets a page: %d bytes, %.2f bytes per id held (%d)%n",
                impl, entries, sets, layout.totalSize(), (double) layout.totalSize() / size, size);
        if (args.length > 3) {
            System.out.println("pid " + ProcessHandle.current().pid() + ": waiting for jcmd");
            Thread.sleep(Long.parseLong(args[3]));
        }
    }
}
