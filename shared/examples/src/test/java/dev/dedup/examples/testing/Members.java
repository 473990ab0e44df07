package dev.dedup.examples.testing;

import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The counts consumer members print, one line per batch ({@code VERDICTS new=.. retry=.. duplicate=..},
 * {@code RELEASED n}): printed by the members' listeners, summed over every member's log, those of members killed
 * with {@code kill -9} included. And how a member in a JVM of its own runs its loop.
 */
public final class Members {

    public record Counts(long fresh, long retried, long duplicates, long released) {
        public Counts plus(Counts o) {
            return new Counts(fresh + o.fresh, retried + o.retried, duplicates + o.duplicates, released + o.released);
        }

        @Override
        public String toString() {
            return "new " + fresh + ", retry " + retried + ", duplicate " + duplicates + ", released " + released;
        }
    }

    private static final Pattern VERDICTS = Pattern.compile("VERDICTS new=(\\d+) retry=(\\d+) duplicate=(\\d+)");
    private static final Pattern RELEASED = Pattern.compile("RELEASED (\\d+)");

    public static Counts counts(List<ChildJvm> members) {
        Counts total = new Counts(0, 0, 0, 0);
        for (ChildJvm m : members) {
            for (String line : m.output().split("\n")) {
                Matcher v = VERDICTS.matcher(line);
                if (v.find()) {
                    total = total.plus(new Counts(
                            Long.parseLong(v.group(1)), Long.parseLong(v.group(2)), Long.parseLong(v.group(3)), 0));
                }
                Matcher r = RELEASED.matcher(line);
                if (r.find()) {
                    total = total.plus(new Counts(0, 0, 0, Long.parseLong(r.group(1))));
                }
            }
        }
        return total;
    }

    /** Prints {@code PAUSED} and {@code where}, then waits for the test's {@code kill -9}. */
    public static void pauseUntilKilled(String where) {
        System.out.println("PAUSED " + where);
        System.out.flush();
        try {
            Thread.sleep(Long.MAX_VALUE); // until kill -9
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * Runs {@code loop} on a thread of its own until it ends; a shutdown hook (SIGTERM, as in a pod) calls {@code
     * stop} and gives the thread 10 s more to end. Prints {@code STARTED} first.
     */
    public static void run(Runnable loop, String thread, Runnable stop) throws InterruptedException {
        Thread worker = new Thread(loop, thread);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            stop.run();
            try {
                worker.join(10_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }));
        System.out.println("STARTED");
        worker.start();
        worker.join();
    }

    private Members() {}
}
