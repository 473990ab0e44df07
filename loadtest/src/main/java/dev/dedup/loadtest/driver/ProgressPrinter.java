package dev.dedup.loadtest.driver;

import java.io.PrintStream;
import java.util.Locale;

/**
 * Prints one line a second on stderr: the phase, ids answered in it, ids per second over the last second,
 * errors so far. A daemon thread of its own, so that printing never runs on an event loop.
 */
public final class ProgressPrinter implements AutoCloseable {

    private final Thread thread;
    private volatile boolean running = true;

    public ProgressPrinter(Progress progress, PrintStream err) {
        thread = new Thread(() -> loop(progress, err), "loadtest-progress");
        thread.setDaemon(true);
        thread.start();
    }

    private void loop(Progress progress, PrintStream err) {
        long lastIds = progress.ids();
        long lastNanos = System.nanoTime();
        while (running) {
            try {
                Thread.sleep(1000);
            } catch (InterruptedException e) {
                return;
            }
            long ids = progress.ids();
            long now = System.nanoTime();
            double rate = (ids - lastIds) * 1e9 / Math.max(1, now - lastNanos);
            lastIds = ids;
            lastNanos = now;
            if (running && progress.phaseTotal() == 0) {
                err.println("[" + progress.phaseName() + "]");
            } else if (running) {
                err.println(String.format(
                        Locale.ROOT,
                        "[%s] %,d/%,d ids, %,.0f ids/s, %,d errors",
                        progress.phaseName(),
                        progress.phaseDone(),
                        progress.phaseTotal(),
                        rate,
                        progress.errors()));
            }
        }
    }

    @Override
    public void close() {
        running = false;
        thread.interrupt();
    }
}
