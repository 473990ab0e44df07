package dev.dedup.loadtest.workload;

import java.nio.charset.StandardCharsets;

/**
 * The ids of one run: id {@code i} is a UUID-shaped string derived from (run id, seed, stream, i). Distinct
 * indexes always give distinct ids (the derivation is a bijection of the index), and a new run id gives a new
 * set of ids, so every run claims ids no earlier run has claimed unless it is given the same run id and seed.
 */
public final class IdSpace {

    /** The stream of measured ids. */
    public static final int MEASURED = 0;
    /** The stream of warm-up ids: never the same as measured ones. */
    public static final int WARMUP = 1;
    /** The mixed pass's own ids, fresh even after the uniform passes claimed the measured ones. */
    public static final int MIXED = 2;
    /** The warm-up's mixed pass. */
    public static final int WARMUP_MIXED = 3;

    /** Event time of each stream starts this many seconds after the previous stream's. */
    public static final int STREAM_SECONDS = 1_000_000;

    private final long key;
    private final int firstSecond;

    public IdSpace(String runId, long seed, int stream) {
        long h = 0xcbf29ce484222325L;
        for (byte b : runId.getBytes(StandardCharsets.UTF_8)) {
            h = (h ^ (b & 0xff)) * 0x100000001b3L;
        }
        this.key = mix(mix(h ^ seed) + stream);
        this.firstSecond = stream * STREAM_SECONDS;
    }

    /**
     * The second message {@code index} was produced at, shared by all its copies: {@link EventTime}'s rate
     * from the start of this stream's own stretch of event time, so that the passes of a run (and its
     * warm-up) never share a second.
     */
    public int eventSecond(long index) {
        return firstSecond + EventTime.secondOf(index);
    }

    /** The id of index {@code i}, 36 ASCII characters. */
    public String id(long index) {
        long hi = mix(index ^ key);
        long lo = mix(hi + key);
        return uuid(hi, lo);
    }

    /** SplitMix64's finalizer: a bijection of 64-bit values with good avalanche. */
    static long mix(long z) {
        z = (z ^ (z >>> 30)) * 0xbf58476d1ce4e5b9L;
        z = (z ^ (z >>> 27)) * 0x94d049bb133111ebL;
        return z ^ (z >>> 31);
    }

    private static String uuid(long hi, long lo) {
        char[] c = new char[36];
        hex(c, 0, hi >>> 32, 8);
        c[8] = '-';
        hex(c, 9, hi >>> 16, 4);
        c[13] = '-';
        hex(c, 14, hi, 4);
        c[18] = '-';
        hex(c, 19, lo >>> 48, 4);
        c[23] = '-';
        hex(c, 24, lo, 12);
        return new String(c);
    }

    private static void hex(char[] out, int at, long value, int digits) {
        for (int i = digits - 1; i >= 0; i--) {
            out[at + i] = Character.forDigit((int) (value & 0xf), 16);
            value >>>= 4;
        }
    }
}
