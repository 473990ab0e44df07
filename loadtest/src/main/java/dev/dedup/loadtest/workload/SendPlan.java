package dev.dedup.loadtest.workload;

import java.util.Arrays;
import java.util.SplittableRandom;

/**
 * The copies one pass sends, in order: copy {@code copies[k]} of message {@code indexes[k]} is the
 * {@code k}-th item sent. The uniform passes send every message once as the same copy; the mixed pass
 * interleaves originals with producer duplicates and replayed batches the way a real stream does.
 */
public record SendPlan(int[] indexes, byte[] copies) {

    /** Replays and duplicates come at least this many batches after what they repeat. */
    static final int MIN_GAP_BATCHES = 4;

    public SendPlan {
        if (indexes.length != copies.length) {
            throw new IllegalArgumentException(indexes.length + " indexes for " + copies.length + " copies");
        }
    }

    public int size() {
        return indexes.length;
    }

    /** Every message of {@code [0, ids)} once, in order, as copy {@code copy}. */
    public static SendPlan uniform(int ids, int copy) {
        int[] indexes = new int[ids];
        for (int i = 0; i < ids; i++) {
            indexes[i] = i;
        }
        byte[] copies = new byte[ids];
        Arrays.fill(copies, (byte) copy);
        return new SendPlan(indexes, copies);
    }

    /**
     * The originals of {@code [0, ids)} in order, and among them:
     * <ul>
     * <li>for a share {@code dupRate} of messages, the producer's second write (another owner), placed
     * {@code MIN_GAP_BATCHES} batches plus a uniform {@code [0, spread)} items after its original;</li>
     * <li>for a share {@code retryRate} of batches, the whole batch again with the same owners, as a retried
     * task re-reads it, placed as far after the batch.</li>
     * </ul>
     * Deterministic for a given seed.
     */
    public static SendPlan mixed(int ids, double dupRate, double retryRate, int batch, int spread, long seed) {
        SplittableRandom random = new SplittableRandom(seed);
        long gapBase = (long) MIN_GAP_BATCHES * batch;
        Sends sends = new Sends(ids + (int) Math.min(Integer.MAX_VALUE / 2, (long) (ids * (dupRate + retryRate))));
        for (int i = 0; i < ids; i++) {
            sends.add(key(i, 0, 0), i, Owners.ORIGINAL);
            if (dupRate > 0 && random.nextDouble() < dupRate) {
                sends.add(key(i + gapBase + (spread > 0 ? random.nextInt(spread) : 0), 1, 0), i, Owners.SECOND_WRITE);
            }
        }
        if (retryRate > 0) {
            for (int start = 0; start < ids; start += batch) {
                if (random.nextDouble() >= retryRate) {
                    continue;
                }
                int end = Math.min(ids, start + batch);
                long at = end + gapBase + (spread > 0 ? random.nextInt(spread) : 0);
                for (int i = start; i < end; i++) {
                    sends.add(key(at, 2, i - start), i, Owners.ORIGINAL);
                }
            }
        }
        // A stable sort by key: sends of equal key keep the order they were made in.
        Integer[] order = new Integer[sends.n];
        for (int k = 0; k < sends.n; k++) {
            order[k] = k;
        }
        long[] keys = sends.keys;
        Arrays.sort(order, (a, b) -> Long.compare(keys[a], keys[b]));
        int[] indexes = new int[sends.n];
        byte[] copies = new byte[sends.n];
        for (int k = 0; k < sends.n; k++) {
            indexes[k] = sends.indexes[order[k]];
            copies[k] = sends.copies[order[k]];
        }
        return new SendPlan(indexes, copies);
    }

    /** Growable parallel arrays of sends before sorting. */
    private static final class Sends {
        long[] keys;
        int[] indexes;
        byte[] copies;
        int n;

        Sends(int capacity) {
            keys = new long[Math.max(16, capacity)];
            indexes = new int[keys.length];
            copies = new byte[keys.length];
        }

        void add(long key, int index, int copy) {
            if (n == keys.length) {
                int grown = (int) Math.min(Integer.MAX_VALUE - 8, keys.length * 3L / 2 + 16);
                if (grown == n) {
                    throw new IllegalStateException("mixed plan too large: " + n + " sends");
                }
                keys = Arrays.copyOf(keys, grown);
                indexes = Arrays.copyOf(indexes, grown);
                copies = Arrays.copyOf(copies, grown);
            }
            keys[n] = key;
            indexes[n] = index;
            copies[n] = (byte) copy;
            n++;
        }
    }

    /** Position (up to 2^36), kind (0 original, 1 duplicate, 2 replay), order within a replayed batch (2^20). */
    private static long key(long position, int kind, int within) {
        return (position << 22) | ((long) kind << 20) | within;
    }
}
