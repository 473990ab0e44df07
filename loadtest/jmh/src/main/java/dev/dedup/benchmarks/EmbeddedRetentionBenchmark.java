package dev.dedup.benchmarks;

import dev.dedup.agent.config.EmbeddedStoreOptions;
import dev.dedup.agent.store.ClaimPolicy;
import dev.dedup.agent.store.embedded.EmbeddedStore;
import dev.dedup.agent.store.embedded.RetentionModel;
import dev.dedup.codec.Batch;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.Locale;
import java.util.concurrent.ExecutionException;
import java.util.stream.Stream;

/**
 * Measures how much of the past the embedded store remembers at full size, and how fast it claims.
 *
 * <p>In a fresh store under a temporary directory ({@code --slots}, default 6,500,000, 8-way) it claims
 * {@code --tracked} ids (default 100,000), then {@code --later} distinct ids (default 3,600,000: one hour
 * at 1,000 ids/s), then claims the tracked ids again with the same owners and counts the {@code retry}
 * answers. It prints that fraction, what {@link RetentionModel} predicts for it, what NSQ's
 * direct-mapped table of the same size would keep and how many slots it would need for 90 %, and the
 * store's own claim rate: single thread, batches of 1,000, batch building (hashing) excluded and, on a
 * second line, included. The window is 24 h, so nothing expires and only replacement forgets.
 *
 * <p>The tracked ids are claimed again newest first. A forgotten id claimed again takes the oldest slot
 * of its set, and every older tracked id of that set has already been forgotten, so the check does not
 * change what it measures.
 *
 * <p>Run after {@code mvn -pl loadtest/jmh -am package -DskipTests}:
 *
 * <pre>
 * java -cp loadtest/jmh/target/dedup-benchmarks.jar dev.dedup.benchmarks.EmbeddedRetentionBenchmark \
 *     [--slots N] [--later N] [--tracked N]
 * </pre>
 *
 * <p>The file takes {@code 16 × slots} bytes (104 MB by default) under {@code java.io.tmpdir}; the
 * directory is deleted at the end.
 */
public final class EmbeddedRetentionBenchmark {

    private static final int WAYS = 8;
    private static final int BATCH = 1_000;
    private static final long WINDOW_MILLIS = 24 * 3_600_000L;
    private static final String NAMESPACE = "bench";
    private static final byte[] OWNER = "bench-worker".getBytes(StandardCharsets.US_ASCII);
    private static final byte TRACKED_PREFIX = 't';
    private static final byte LATER_PREFIX = 'l';

    private long claimNanos;
    private long totalNanos;
    private long claims;

    private EmbeddedRetentionBenchmark() {}

    public static void main(String[] args) throws Exception {
        long slots = 6_500_000;
        long later = 3_600_000;
        int tracked = 100_000;
        for (int i = 0; i < args.length; i++) {
            String value = i + 1 < args.length ? args[i + 1] : null;
            switch (args[i]) {
                case "--slots" -> slots = parse(args[i], value);
                case "--later" -> later = parse(args[i], value);
                case "--tracked" -> tracked = Math.toIntExact(parse(args[i], value));
                default -> usage("unknown option " + args[i]);
            }
            i++;
        }
        Path dir = Files.createTempDirectory("dedup-retention-");
        try {
            new EmbeddedRetentionBenchmark().run(dir, slots, later, tracked);
        } finally {
            deleteRecursively(dir);
        }
    }

    private void run(Path dir, long slotOption, long later, int tracked) throws Exception {
        EmbeddedStoreOptions options = new EmbeddedStoreOptions(dir, slotOption, WAYS);
        long sets = options.sets();
        int retries;
        try (EmbeddedStore store = new EmbeddedStore(options, System::currentTimeMillis)) {
            System.out.printf(
                    Locale.ROOT,
                    "store: %,d slots, %d-way, %,d sets, file %s%n",
                    store.slots(),
                    WAYS,
                    sets,
                    dir.resolve("claims.slots"));
            claimRange(store, TRACKED_PREFIX, 0, tracked);
            claimRange(store, LATER_PREFIX, 0, later);
            retries = countRetries(store, tracked);
            System.out.printf(
                    Locale.ROOT,
                    "store claims/s: %,.0f (claim calls only), %,.0f (with batch building);"
                            + " %,d claims, single thread%n",
                    claims * 1e9 / claimNanos,
                    claims * 1e9 / totalNanos,
                    claims);
            System.out.printf(Locale.ROOT, "occupied slots: %,d of %,d%n", store.occupiedSlots(), store.slots());
        }
        double measured = (double) retries / tracked;
        double predicted = 0;
        for (int j = 0; j < tracked; j++) {
            predicted += RetentionModel.probabilityRemembered(WAYS, sets, later + (tracked - 1 - j));
        }
        predicted /= tracked;
        long slots = sets * WAYS;
        System.out.printf(
                Locale.ROOT,
                "remembered after %,d later ids: %.4f measured (%,d of %,d answered retry),"
                        + " %.4f predicted by the model%n",
                later,
                measured,
                retries,
                tracked,
                predicted);
        System.out.printf(
                Locale.ROOT,
                "NSQ's direct-mapped table of %,d slots would remember %.4f;"
                        + " it needs %,d slots for 90 %% after %,d later ids, where %d-way needs %,d%n",
                slots,
                RetentionModel.probabilityRemembered(1, slots, later),
                RetentionModel.slotsNeeded(1, later, 0.9),
                later,
                WAYS,
                RetentionModel.slotsNeeded(WAYS, later, 0.9));
    }

    /** Claims ids {@code prefix:from} to {@code prefix:to}, all expected new. */
    private void claimRange(EmbeddedStore store, byte prefix, long from, long to)
            throws ExecutionException, InterruptedException {
        byte[] id = new byte[9];
        id[0] = prefix;
        for (long start = from; start < to; start += BATCH) {
            long end = Math.min(to, start + BATCH);
            long t0 = System.nanoTime();
            Batch.Builder builder = Batch.builder((int) (end - start));
            for (long n = start; n < end; n++) {
                ByteBuffer.wrap(id, 1, 8).putLong(n);
                builder.add(id, 0, id.length, OWNER, 0, OWNER.length);
            }
            Batch batch = builder.build(NAMESPACE);
            long t1 = System.nanoTime();
            byte[] verdicts = store.claim(batch, ClaimPolicy.window(WINDOW_MILLIS))
                    .toCompletableFuture()
                    .get();
            long t2 = System.nanoTime();
            claimNanos += t2 - t1;
            totalNanos += t2 - t0;
            claims += verdicts.length;
            for (byte v : verdicts) {
                if (v != 0) {
                    throw new IllegalStateException("a first claim was answered " + v + ", not new: ids collide?");
                }
            }
        }
    }

    /** Claims the tracked ids again, newest first, and counts the retry answers. */
    private static int countRetries(EmbeddedStore store, int tracked) throws ExecutionException, InterruptedException {
        byte[] id = new byte[9];
        id[0] = TRACKED_PREFIX;
        int retries = 0;
        for (int end = tracked; end > 0; end -= BATCH) {
            int start = Math.max(0, end - BATCH);
            Batch.Builder builder = Batch.builder(end - start);
            for (int n = end - 1; n >= start; n--) {
                ByteBuffer.wrap(id, 1, 8).putLong(n);
                builder.add(id, 0, id.length, OWNER, 0, OWNER.length);
            }
            for (byte v : store.claim(builder.build(NAMESPACE), ClaimPolicy.window(WINDOW_MILLIS))
                    .toCompletableFuture()
                    .get()) {
                retries += v == 1 ? 1 : 0;
            }
        }
        return retries;
    }

    private static long parse(String option, String value) {
        if (value == null) {
            usage(option + " needs a number");
        }
        try {
            return Long.parseLong(value.replace("_", "").replace(",", ""));
        } catch (NumberFormatException e) {
            usage(option + ": " + value + " is not a number");
            return 0;
        }
    }

    private static void usage(String problem) {
        System.err.println(problem);
        System.err.println("usage: java -cp dedup-benchmarks.jar " + EmbeddedRetentionBenchmark.class.getName()
                + " [--slots N] [--later N] [--tracked N]");
        System.exit(2);
    }

    private static void deleteRecursively(Path dir) {
        try (Stream<Path> paths = Files.walk(dir)) {
            paths.sorted(Comparator.reverseOrder()).forEach(p -> {
                try {
                    Files.delete(p);
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            });
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
