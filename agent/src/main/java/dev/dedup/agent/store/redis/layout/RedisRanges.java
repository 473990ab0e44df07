package dev.dedup.agent.store.redis.layout;

import dev.dedup.agent.store.ClaimPolicy;
import dev.dedup.agent.store.FailureKind;
import dev.dedup.agent.store.StoreUnavailableException;
import dev.dedup.agent.store.redis.access.RedisKeys;
import dev.dedup.agent.store.redis.access.RedisPort;
import dev.dedup.agent.store.redis.access.RedisPort.Script;
import dev.dedup.agent.store.redis.access.RedisPort.Script.Mode;
import dev.dedup.agent.store.redis.topology.Routing;
import dev.dedup.codec.Batch;
import dev.dedup.codec.RangeRequest;
import dev.dedup.wire.SequenceRange;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletionStage;

/**
 * Committed ranges of ordered streams in Redis, one key per (namespace, stream) on the shard its hash
 * chooses: a string of the stream's live intervals, "from to end-second" each, sorted, merged whenever
 * they overlap or touch, so that a stream committed in order is one interval of about 130 bytes whatever
 * its number of commits. {@code ranges.lua} checks or commits all of a request's ranges in one call,
 * atomically; the key expires with its last interval.
 *
 * <p>Each call is told which shard list places the stream ({@link Routing}); what two lists hold of one stream is
 * joined by {@link #union}.
 */
public final class RedisRanges {

    /** Most intervals one stream may hold: past that a commit is refused (a worker committing out of order). */
    static final int MAX_INTERVALS_PER_STREAM = 10_000;

    private static final byte[] NONE = new byte[0];

    private final RedisPort port;
    private final RedisKeys keys;
    private final byte[] most = RedisKeys.ascii(MAX_INTERVALS_PER_STREAM);

    public RedisRanges(RedisPort port, RedisKeys keys) {
        this.port = port;
        this.keys = keys;
    }

    /** Which parts of each range of {@code request} are committed, on the shard {@code where} places the stream. */
    public CompletionStage<List<List<SequenceRange>>> check(Routing where, RangeRequest request, long nowMillis) {
        return check(request, where.shard(placement(request)), nowMillis);
    }

    /** What places a stream's ranges among the shards of a list ({@link Routing#shard}). */
    public static long placement(RangeRequest request) {
        return hash(request.namespace(), request.stream());
    }

    /** Two lists of committed parts of one range, each sorted and disjoint, as one: sorted, merged where they touch. */
    public static List<SequenceRange> union(List<SequenceRange> a, List<SequenceRange> b) {
        if (b.isEmpty()) {
            return a;
        }
        if (a.isEmpty()) {
            return b;
        }
        List<SequenceRange> all = new ArrayList<>(a);
        all.addAll(b);
        all.sort(java.util.Comparator.comparing(SequenceRange::from));
        List<SequenceRange> out = new ArrayList<>();
        SequenceRange last = null;
        for (SequenceRange r : all) {
            if (last != null && r.from().compareTo(last.to().add(BigInteger.ONE)) <= 0) {
                last = new SequenceRange(last.from(), last.to().max(r.to()));
                out.set(out.size() - 1, last);
            } else {
                last = r;
                out.add(r);
            }
        }
        return out;
    }

    private CompletionStage<List<List<SequenceRange>>> check(RangeRequest request, int shard, long nowMillis) {
        return call(request, shard, Mode.RANGE_CHECK, nowMillis, NONE).thenApply(reply -> {
            List<List<SequenceRange>> done = new ArrayList<>(reply.size());
            for (Object parts : reply) {
                done.add(parse((byte[]) parts));
            }
            if (done.size() != request.ranges().size()) {
                throw new StoreUnavailableException(
                        FailureKind.ERROR,
                        "redis answered " + done.size() + " checks for "
                                + request.ranges().size() + " ranges",
                        null);
            }
            return done;
        });
    }

    /** Commits every range of {@code request} on the shard {@code where} places the stream. */
    public CompletionStage<Void> commit(Routing where, RangeRequest request, ClaimPolicy policy, long nowMillis) {
        byte[] ends = RedisKeys.ascii(policy.endSecond(Batch.NO_EVENT_TIME, nowMillis));
        return call(request, where.shard(placement(request)), Mode.RANGE_COMMIT, nowMillis, ends)
                .thenApply(reply -> null);
    }

    /**
     * One call of {@code ranges.lua} (sent after {@code guard.lua}, as one script) for every range of {@code
     * request}. {@code KEYS[1]} is the stream's key (the guard's key follows, {@link
     * dev.dedup.agent.store.redis.topology.GuardedPort}). {@code ARGV}, in order (the guard's expected record
     * follows):
     *
     * <ol>
     *   <li>{@code 'k'} check, {@code 'm'} commit;
     *   <li>now, whole seconds by the agent's clock: intervals ending at or before it are over;
     *   <li>commit: the end second of what the call commits (now + window); empty for a check;
     *   <li>commit: the most intervals the stream may hold ({@value #MAX_INTERVALS_PER_STREAM});
     *   <li>then per range, in request order, four decimal strings: from, to, from - 1 (empty when from is 0), and
     *       to + 1, which tell the script which stored intervals a range touches without arithmetic on numbers
     *       of up to 129 digits.
     * </ol>
     *
     * <p>The script replies, for a check, one string per range: its committed parts, {@code "<from> <to>\n"}
     * each; for a commit, the number of intervals the stream holds.
     */
    private CompletionStage<List<Object>> call(
            RangeRequest request, int shard, Mode mode, long nowMillis, byte[] ends) {
        long hash = hash(request.namespace(), request.stream());
        List<SequenceRange> ranges = request.ranges();
        byte[][] args = new byte[4 + 4 * ranges.size()][];
        args[0] = mode.arg();
        args[1] = RedisKeys.ascii(Math.floorDiv(nowMillis, 1000L));
        args[2] = ends;
        args[3] = most;
        for (int k = 0; k < ranges.size(); k++) {
            SequenceRange r = ranges.get(k);
            int at = 4 + 4 * k;
            args[at] = ascii(r.from());
            args[at + 1] = ascii(r.to());
            args[at + 2] = r.from().signum() == 0 ? NONE : ascii(r.from().subtract(BigInteger.ONE));
            args[at + 3] = ascii(r.to().add(BigInteger.ONE));
        }
        byte[][] key = {key(keys, shard, request.namespace(), request.stream(), hash)};
        return port.eval(shard, Script.RANGES, mode.op(), key, args);
    }

    /**
     * {@code <prefix>{r<8-byte hash of ns and stream>}<ns>\0<stream>}: the committed ranges of one stream. The
     * hash tag puts the key in one Redis Cluster slot; the names after it keep streams apart whatever their
     * hashes. On a cluster, {@code <prefix>{<group tag>}r<hash><ns>\0<stream>}.
     */
    static byte[] key(RedisKeys keys, int shard, String namespace, String stream, long hash) {
        byte[] tagged = keys.hashTagged(shard, "r", hash, 8);
        byte[] ns = namespace.getBytes(StandardCharsets.UTF_8);
        byte[] s = stream.getBytes(StandardCharsets.UTF_8);
        byte[] key = Arrays.copyOf(tagged, tagged.length + ns.length + 1 + s.length);
        System.arraycopy(ns, 0, key, tagged.length, ns.length);
        System.arraycopy(s, 0, key, tagged.length + ns.length + 1, s.length);
        return key;
    }

    /** A stream's 64-bit hash (FNV-1a of the namespace, a zero byte and the stream). */
    static long hash(String namespace, String stream) {
        long h = 0xcbf29ce484222325L;
        for (byte b : (namespace + '\0' + stream).getBytes(StandardCharsets.UTF_8)) {
            h = (h ^ (b & 0xff)) * 0x100000001b3L;
        }
        return h ^ (h >>> 31);
    }

    /** {@code "from to\n"} pairs. */
    private static List<SequenceRange> parse(byte[] parts) {
        List<SequenceRange> out = new ArrayList<>(1);
        String s = new String(parts, StandardCharsets.US_ASCII);
        int at = 0;
        while (at < s.length()) {
            int space = s.indexOf(' ', at);
            int nl = s.indexOf('\n', space);
            out.add(new SequenceRange(
                    new BigInteger(s.substring(at, space)), new BigInteger(s.substring(space + 1, nl))));
            at = nl + 1;
        }
        return out;
    }

    private static byte[] ascii(BigInteger n) {
        return n.toString().getBytes(StandardCharsets.US_ASCII);
    }
}
