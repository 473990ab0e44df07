package dev.dedup.codec;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

import dev.dedup.wire.BatchRejectedException;
import java.lang.management.ManagementFactory;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * Bounded property-based tests of both decoders: from seeded random valid bodies (a third of them with event
 * times) and their mutations (flipped bits, inserted, deleted and duplicated ranges, truncations, splices of
 * two bodies, length fields and event seconds set to extremes, the event-times flag flipped, random bytes; for
 * JSON also stray tokens, {@code "ts"} among them, and deep nesting), every input must decode to a
 * {@link Batch} or be refused with a {@link BatchRejectedException} — any other {@link Throwable} fails, with
 * the seed and the input in hex. Decoding must be deterministic, and an unmutated body must decode to as many
 * items as were generated, with the event seconds generated (and to the same fingerprints and seconds in the
 * other format).
 *
 * <p>The default of 300,000 inputs per decoder runs in seconds, on one thread per core (up to 4). Failures
 * name the seed and round; a round's body is the same for any number of threads, its splices are not, so
 * keep the printed input. To run millions:
 * <pre>
 * mvn -pl shared/codec -am test -Dsurefire.failIfNoSpecifiedTests=false \
 *     -Dtest=DecoderFuzzTest -Dfuzz.iterations=5000000
 * </pre>
 * and add {@code -Dfuzz.seed=N} to explore other inputs than the default seed's.
 * Each decoder prints one summary line: inputs tried, accepted, and rejected by reason.
 */
class DecoderFuzzTest {

    private static final long ITERATIONS = Long.getLong("fuzz.iterations", 300_000L);
    private static final long SEED = Long.getLong("fuzz.seed", 0x5eed_ded0L);
    private static final int MAX_ITEMS = FuzzFormat.MAX_ITEMS;
    private static final int MUTANTS_PER_BODY = 6;

    @Test
    void binaryDecoder_answersEveryInputWithABatchOrARejection() throws Throwable {
        fuzz(new FuzzFormat.Binary());
    }

    @Test
    void jsonDecoder_answersEveryInputWithABatchOrARejection() throws Throwable {
        fuzz(new FuzzFormat.Json());
    }

    /**
     * Splits the rounds over one worker thread per core (up to 4). Fresh threads also keep stacks short: most
     * inputs are rejected, and under the test framework's 70-odd frames the parser's exceptions would spend
     * more time filling in their stack trace than parsing.
     */
    private static void fuzz(FuzzFormat format) throws Throwable {
        long start = System.nanoTime();
        int workers = Math.max(1, Math.min(4, Runtime.getRuntime().availableProcessors()));
        Tally[] tallies = new Tally[workers];
        Throwable[] failures = new Throwable[workers];
        Thread[] threads = new Thread[workers];
        for (int w = 0; w < workers; w++) {
            int worker = w;
            long quota = ITERATIONS / workers + (w < ITERATIONS % workers ? 1 : 0);
            tallies[w] = new Tally();
            threads[w] = new Thread(
                    () -> {
                        try {
                            fuzz(format, worker, workers, quota, tallies[worker]);
                        } catch (Throwable t) {
                            failures[worker] = t;
                        }
                    },
                    "decoder-fuzz-" + w);
            threads[w].start();
        }
        for (Thread t : threads) {
            t.join();
        }
        for (Throwable t : failures) {
            if (t != null) {
                throw t;
            }
        }
        Tally total = new Tally();
        for (Tally t : tallies) {
            total.add(t);
        }
        System.out.printf(
                "DecoderFuzzTest %s: %d inputs (%d valid unmutated), %d accepted, rejected %s;"
                        + " %d ms on %d threads (%d ms CPU), seed %d%n",
                format.name,
                total.inputs,
                total.valid,
                total.accepted,
                total.rejected,
                (System.nanoTime() - start) / 1_000_000,
                workers,
                total.cpuNanos / 1_000_000,
                SEED);
        assertEquals(ITERATIONS, total.inputs);
        assertEquals(
                total.inputs,
                total.accepted
                        + total.rejected.values().stream()
                                .mapToLong(Long::longValue)
                                .sum());
    }

    /** Rounds {@code worker}, {@code worker + workers}, ... until {@code quota} inputs are tried. */
    private static void fuzz(FuzzFormat format, int worker, int workers, long quota, Tally tally) {
        long startCpu = ManagementFactory.getThreadMXBean().getCurrentThreadCpuTime();
        byte[] previous = new byte[0];
        for (long round = worker; tally.inputs < quota; round += workers) {
            // One valid body per round, decoded as is, then several mutants of it (generating costs more than
            // decoding, so each body is used a few times).
            SplittableRandom r = new SplittableRandom(SEED * 0x9e3779b97f4a7c15L + round);
            FuzzFormat.Generated g = format.generate(r);
            int maxItems = r.nextBoolean() ? MAX_ITEMS : g.items().size();
            Object outcome = check(format, g.body(), maxItems, round, tally);
            if (!(outcome instanceof Batch batch)) {
                fail(report(format, round, g.body(), maxItems, "a valid body was rejected: " + describe(outcome)));
                return;
            }
            tally.valid++;
            if (batch.size() != g.items().size() || !batch.namespace().equals(g.ns())) {
                fail(report(
                        format,
                        round,
                        g.body(),
                        maxItems,
                        "decoded " + batch.size() + " items in " + batch.namespace() + ", generated "
                                + g.items().size() + " in " + g.ns()));
            }
            for (int i = 0; i < batch.size(); i++) {
                if (batch.eventSecond(i) != g.items().get(i).eventSecond()) {
                    fail(report(
                            format,
                            round,
                            g.body(),
                            maxItems,
                            "items[" + i + "] decoded with event second " + batch.eventSecond(i) + ", generated "
                                    + g.items().get(i).eventSecond()));
                }
            }
            if (g.textIds()
                    && g.expressibleInBinary()
                    && r.nextInt(4) == 0
                    && !Batches.same(format.decodeOther(g.ns(), g.items()), batch)) {
                fail(report(format, round, g.body(), maxItems, "fingerprints differ from the other format's"));
            }
            for (int k = 0; k < MUTANTS_PER_BODY && tally.inputs < quota; k++) {
                byte[] input = g.body();
                for (int m = 1 + r.nextInt(3); m > 0; m--) {
                    input = mutate(format, g, input, previous, r);
                }
                maxItems = switch (r.nextInt(4)) {
                    case 0 -> g.items().size();
                    case 1 -> Math.max(0, g.items().size() - 1);
                    case 2 -> r.nextInt(20);
                    default -> MAX_ITEMS;
                };
                check(format, input, maxItems, round, tally);
            }
            previous = g.body();
        }
        tally.cpuNanos = ManagementFactory.getThreadMXBean().getCurrentThreadCpuTime() - startCpu;
    }

    private static final class Tally {
        long inputs;
        long valid;
        long accepted;
        long cpuNanos;
        final Map<BatchRejectedException.Reason, Long> rejected = new EnumMap<>(BatchRejectedException.Reason.class);

        void add(Tally t) {
            inputs += t.inputs;
            valid += t.valid;
            accepted += t.accepted;
            cpuNanos += t.cpuNanos;
            t.rejected.forEach((reason, n) -> rejected.merge(reason, n, Long::sum));
        }
    }

    /** Decodes {@code input} twice, checks that both outcomes agree, and counts the outcome. */
    private static Object check(FuzzFormat format, byte[] input, int maxItems, long round, Tally tally) {
        Object first = attempt(format, input, maxItems, round);
        Object second = attempt(format, input, maxItems, round);
        if (!sameOutcome(first, second)) {
            fail(report(
                    format,
                    round,
                    input,
                    maxItems,
                    "not deterministic: " + describe(first) + " then " + describe(second)));
        }
        tally.inputs++;
        if (first instanceof Batch) {
            tally.accepted++;
        } else {
            tally.rejected.merge(((BatchRejectedException) first).reason(), 1L, Long::sum);
        }
        return first;
    }

    /** The batch, or the rejection; anything else thrown fails the test with the input. */
    private static Object attempt(FuzzFormat format, byte[] input, int maxItems, long round) {
        try {
            return format.decode(input, maxItems);
        } catch (BatchRejectedException e) {
            return e;
        } catch (Throwable t) {
            fail(report(format, round, input, maxItems, "threw " + t), t);
            return null;
        }
    }

    private static boolean sameOutcome(Object a, Object b) {
        if (a instanceof Batch x && b instanceof Batch y) {
            return Batches.same(x, y);
        }
        if (a instanceof BatchRejectedException x && b instanceof BatchRejectedException y) {
            return x.reason() == y.reason() && x.getMessage().equals(y.getMessage());
        }
        return false;
    }

    private static String describe(Object outcome) {
        return outcome instanceof Batch b ? Batches.describe(b) : String.valueOf(outcome);
    }

    private static String report(FuzzFormat format, long round, byte[] input, int maxItems, String problem) {
        return format.name + " decoder: " + problem + "\n  seed " + SEED + " (-Dfuzz.seed=" + SEED + "), round "
                + round + ", maxItems " + maxItems + "\n  input (" + input.length + " bytes): "
                + Batches.hex(input);
    }

    private static byte[] mutate(
            FuzzFormat format, FuzzFormat.Generated g, byte[] in, byte[] other, SplittableRandom r) {
        if (r.nextInt(3) == 0) {
            byte[] out = format.mutateFormat(g, in, r);
            if (out != null) {
                return out;
            }
        }
        switch (r.nextInt(8)) {
            case 0 -> { // flip bits
                byte[] out = in.clone();
                for (int n = 1 + r.nextInt(3); n > 0 && out.length > 0; n--) {
                    out[r.nextInt(out.length)] ^= (byte) (1 << r.nextInt(8));
                }
                return out;
            }
            case 1 -> { // insert random bytes
                byte[] bytes = new byte[1 + r.nextInt(8)];
                r.nextBytes(bytes);
                return FuzzFormat.insert(in, r.nextInt(in.length + 1), bytes);
            }
            case 2 -> { // delete a range
                if (in.length == 0) {
                    return in;
                }
                int from = r.nextInt(in.length);
                int to = Math.min(in.length, from + 1 + r.nextInt(16));
                return FuzzFormat.concat(Arrays.copyOfRange(in, 0, from), Arrays.copyOfRange(in, to, in.length));
            }
            case 3 -> { // duplicate a range elsewhere
                if (in.length == 0) {
                    return in;
                }
                int from = r.nextInt(in.length);
                int to = Math.min(in.length, from + 1 + r.nextInt(32));
                return FuzzFormat.insert(in, r.nextInt(in.length + 1), Arrays.copyOfRange(in, from, to));
            }
            case 4 -> { // truncate
                return Arrays.copyOf(in, r.nextInt(in.length + 1));
            }
            case 5 -> { // splice the head of this body onto the tail of another
                return FuzzFormat.concat(
                        Arrays.copyOf(in, r.nextInt(in.length + 1)),
                        Arrays.copyOfRange(other, r.nextInt(other.length + 1), other.length));
            }
            case 6 -> { // overwrite a few bytes
                byte[] out = in.clone();
                for (int n = 1 + r.nextInt(4); n > 0 && out.length > 0; n--) {
                    out[r.nextInt(out.length)] = (byte) r.nextInt(256);
                }
                return out;
            }
            default -> { // random bytes
                byte[] bytes = new byte[r.nextInt(64)];
                r.nextBytes(bytes);
                return bytes;
            }
        }
    }
}
