package dev.dedup.agent.store.redis.layout;

import dev.dedup.agent.metrics.MetricNames;
import dev.dedup.agent.store.ClaimPolicy;
import dev.dedup.agent.store.EventClocks;
import dev.dedup.agent.store.redis.access.RedisKeys;
import dev.dedup.agent.store.redis.access.RedisPort;
import dev.dedup.agent.store.redis.access.RedisPort.Script;
import dev.dedup.agent.store.redis.access.RedisPort.Script.Mode;
import dev.dedup.agent.store.redis.access.ShardCounters;
import dev.dedup.agent.store.redis.gather.CallForm;
import dev.dedup.agent.store.redis.gather.CallGathering;
import dev.dedup.agent.store.redis.gather.CallPlan;
import dev.dedup.agent.store.redis.gather.ScriptCall;
import dev.dedup.codec.Batch;
import dev.dedup.routing.JumpHash;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

/**
 * The event-time layout: claims of namespaces filed by event time, written by {@code timed.lua}. It is
 * Tapjoy's layout ("Real-Time Deduping At Scale") with our fingerprints. Every copy of a message carries
 * the same event second, so an id is looked for only among the claims of that second: the second is
 * split into {@code slices} buckets by the id's route half, sized so that a bucket holds about
 * {@link #TARGET_FILL} claims at the namespace's expected rate. A batch's ids fall into a few hundred
 * buckets, each read once and written once per script call: appended to while it holds fewer than {@link
 * #SETTLE_RECORDS} records, written whole after.
 *
 * <p>A bucket is a Redis <em>string</em> {@code <prefix>{t<u16 namespace tag><u32 second><u16 slice>}}
 * (13 bytes with the default prefix) of 11-byte records: the top 56 bits of the id's key (the same 7
 * bytes as a field of {@link FingerprintTables}, so the release channel carries the same fields) and the
 * owner's 32-bit tag. Measured first as a hash of those fields: every lookup and every {@code HSET} of a
 * listpack decodes and compares entry after entry (a third of a shard's CPU in {@code lpFind} and
 * {@code memcmp}), where a string is searched by one {@code memchr}/{@code memcmp} pass and grows by an
 * append. A second with more claims than planned just makes its buckets longer (counted past
 * {@link #OVERFULL_RECORDS} records). A second's claims end on the namespace's event clock, as on every layout
 * ({@link dev.dedup.agent.store.EventClocks}): its buckets are deleted by {@link TimedSweeper} once the clock is two
 * windows past it, and expire by themselves only long after, a backstop ({@link #ttlSeconds}). A release writes
 * owner tag 0 (a tombstone) in place, which a later claim of the id reuses.
 */
public final class TimeBuckets {

    /** Claims per bucket at the expected rate: Tapjoy's figure (buckets of 100 to 1,000 ids). */
    static final int TARGET_FILL = 100;
    /** u16 key index, 7-byte field, 4-byte owner tag. */
    static final int ITEM_BYTES = 13;
    /** Buckets per second at most: past 6.5 M ids per second a namespace's buckets fill beyond 100. */
    static final int MAX_SLICES = 1 << 16;
    /**
     * Records from which {@code timed.lua} writes a bucket whole (exactly sized) instead of appending to it
     * (which leaves Redis up to twice the string's length): three quarters of the planned fill, which nearly
     * every bucket of a second at the planned rate reaches, so that it ends exactly sized.
     */
    static final int SETTLE_RECORDS = TARGET_FILL * 3 / 4;
    /**
     * Records from which a bucket counts the claims appended to it as overfull ({@code dedup_redis_overfull_total}):
     * about four times the planned fill, a sign that the namespace's event rate is set below its real rate. A bucket
     * still takes any number.
     */
    public static final int OVERFULL_RECORDS = 384;

    private static final byte[] SETTLE_ARG = RedisKeys.ascii(SETTLE_RECORDS);
    private static final byte[] OVERFULL_ARG = RedisKeys.ascii(OVERFULL_RECORDS);
    /** Where {@code timed.lua}'s arguments hold what the items make ({@link #args}). */
    static final CallForm FORM = new CallForm(ITEM_BYTES, 2, 1, 4, 5);

    private static final byte[][] NO_KEYS = new byte[0][];

    private final RedisPort port;
    private final RedisKeys keys;
    private final byte[] channel;
    private final Counter[] overfull;
    private final CallGathering gathering;
    private final EventClocks clocks;
    /** Each namespace this agent has filed claims of, with its policy and where its buckets live: what is swept. */
    private final Map<String, Filed> filed = new ConcurrentHashMap<>();

    /**
     * A namespace's policy and the placement of its buckets, as its last batch was filed, and the oldest event second
     * this agent has filed of it (the first sweep of a namespace starts there, where older seconds end by expiry).
     */
    record Filed(ClaimPolicy policy, Placement where, AtomicLong oldest) {}

    /**
     * {@code ticker}: the store's monotonic clock, in nanoseconds, for how long gathered calls wait; {@code clocks}:
     * the store's event clocks, which this layout moves with every batch and ends its claims on.
     */
    public TimeBuckets(
            RedisPort port, RedisKeys keys, MeterRegistry registry, LongSupplier ticker, EventClocks clocks) {
        this.port = port;
        this.clocks = clocks;
        this.keys = keys;
        this.channel = keys.releaseChannel();
        this.gathering = new CallGathering(port, Script.TIMED, FORM, registry, ticker);
        this.overfull = ShardCounters.of(
                registry,
                port,
                MetricNames.REDIS_OVERFULL,
                "Claims filed by event time into a bucket already holding " + OVERFULL_RECORDS
                        + " claims (about four times the planned 100): the"
                        + " namespace's event rate is set below its real rate");
    }

    /** Which shard holds the buckets of event second {@code second} whose placement hash is {@code hash}. */
    @FunctionalInterface
    public interface Placement {
        int shard(long hash, long second);
    }

    /**
     * Claims a batch whose every item has an event time, each bucket on the shard {@code where} places it; its
     * buckets per second come from the policy.
     */
    public CompletionStage<byte[]> claim(Placement where, Batch batch, ClaimPolicy policy, long nowMillis) {
        return run(where, batch, Mode.CLAIM, policy, nowMillis);
    }

    public CompletionStage<byte[]> release(Placement where, Batch batch, ClaimPolicy policy, long nowMillis) {
        return run(where, batch, Mode.RELEASE, policy, nowMillis);
    }

    private CompletionStage<byte[]> run(Placement where, Batch batch, Mode mode, ClaimPolicy policy, long nowMillis) {
        if (!policy.timeBuckets() || policy.sliding()) {
            throw new IllegalStateException("namespace " + batch.namespace() + " is not filed by event time"
                    + " with a fixed window: " + policy);
        }
        clocks.advance(batch, nowMillis);
        long oldest = oldest(batch);
        filed.compute(batch.namespace(), (ns, was) -> {
            AtomicLong o = was == null ? new AtomicLong(oldest) : was.oldest();
            o.accumulateAndGet(oldest, Math::min);
            return was != null && was.policy().equals(policy) && was.where() == where
                    ? was
                    : new Filed(policy, where, o);
        });
        long clock = clocks.clock(batch.namespace());
        CallPlan plan = plan(where, batch, slices(policy.eventRate()), policy, nowMillis, clock);
        return plan.run(
                port,
                call -> gathering
                        .submit(new ScriptCall(call, mode.op(), NO_KEYS, args(mode, call)))
                        .thenApply(reply -> {
                            if (reply.first() && reply.number(1) > 0) {
                                overfull[call.shard()].increment(reply.number(1));
                            }
                            return reply.answers();
                        }));
    }

    /**
     * The batch's items filed by event time, in buckets of {@code slices} a second, with the namespace's event clock
     * at {@code clock}: a bucket's key argument is the expiry of a new key ({@link #ttlSeconds}).
     */
    CallPlan plan(Placement where, Batch batch, int slices, ClaimPolicy policy, long nowMillis, long clock) {
        int tag = namespaceTag(batch.namespace());
        CallPlan plan = new CallPlan(port.shards(), batch.size(), ITEM_BYTES, 4, CallPlan.MAX_ITEMS_PER_CALL);
        byte[] item = new byte[ITEM_BYTES];
        for (int i = 0; i < batch.size(); i++) {
            long bucket = bucket(tag, batch.eventSecond(i), batch.route(i), slices);
            int shard = where.shard(placement(bucket), second(bucket));
            int k = plan.keyIndex(shard, bucket);
            if (k == 0) {
                k = plan.name(
                        shard, bucket, key(shard, bucket), u32(ttlSeconds(policy, second(bucket), nowMillis, clock)));
            }
            item(item, 0, k, batch.key(i), ownerTag(batch.owner(i)));
            plan.add(shard, i, item);
        }
        return plan;
    }

    /**
     * The arguments of one call of {@code timed.lua} (sent after {@code guard.lua} and {@code answers.lua}, as one
     * script), whose keys are the {@code call}'s buckets, {@code KEYS[k]} for the items of key index {@code k}
     * (the guard's key follows, {@link dev.dedup.agent.store.redis.topology.GuardedPort}). The script replies
     * {@code {answers, overfull}}: one answer byte per item, in order (a claim: 0 new, 1 retry, 2 duplicate; a
     * release: 1 released, 0 not held by that owner), and the claims it appended beyond the cap. {@code ARGV}, in
     * order (the guard's expected record follows):
     *
     * <ol>
     *   <li>{@code 'c'} claim, {@code 'r'} release;
     *   <li>the items, {@value #ITEM_BYTES} bytes each, in batch order ({@link #item});
     *   <li>cap: records a bucket is planned to hold; claims appended beyond it are counted overfull;
     *   <li>the channel on which released fields are published;
     *   <li>per key, the expiry of a new key in seconds, i32 big-endian ({@link #ttlSeconds}): a backstop, since
     *       the claims of a second end on the namespace's event clock, when {@link TimedSweeper} deletes its
     *       buckets;
     *   <li>{@code '1'} when no key index and field come twice among the items ({@link CallForm#distinct}): an
     *       id is then looked for in its bucket only, never among the claims the call appends;
     *   <li>settle: records from which a bucket is written whole ({@value #SETTLE_RECORDS}) instead of appended
     *       to.
     * </ol>
     */
    private byte[][] args(Mode mode, CallPlan.Call call) {
        return FORM.fill(new byte[][] {mode.arg(), null, OVERFULL_ARG, channel, null, null, SETTLE_ARG}, call);
    }

    /**
     * The expiry of a new bucket of {@code second}, in seconds from now, a backstop: the claims of a second are
     * over once the namespace's clock {@code clock} is two windows past it (a window after their event second, and
     * a window more for readers behind the newest; {@link ClaimPolicy#heldSecond}), when {@link TimedSweeper}
     * deletes the second's buckets. The key expires that far ahead of the clock, plus two windows of wall time for
     * a job that stalls meanwhile, so that a sweep that never comes (the agent that was handed the second died)
     * still frees it. A late item (its end already passed on the clock) is kept a window from the clock, as on
     * every layout.
     */
    static int ttlSeconds(ClaimPolicy policy, long second, long nowMillis, long clock) {
        long window = windowSeconds(policy);
        long held = policy.endSecond(second, nowMillis, clock) + window;
        return (int) Math.min(Integer.MAX_VALUE, Math.max(1, held - clock) + 2 * window);
    }

    /** A policy's window in whole seconds, rounded up. */
    static long windowSeconds(ClaimPolicy policy) {
        return -Math.floorDiv(-policy.windowMillis(), 1000L);
    }

    /** The oldest event second of a batch whose every item carries one. */
    private static long oldest(Batch batch) {
        long oldest = Long.MAX_VALUE;
        for (int i = 0; i < batch.size(); i++) {
            oldest = Math.min(oldest, batch.eventSecond(i));
        }
        return oldest;
    }

    /** The namespaces this agent has filed claims of, by name. */
    Map<String, Filed> filed() {
        return filed;
    }

    private static byte[] u32(int v) {
        return new byte[] {(byte) (v >>> 24), (byte) (v >>> 16), (byte) (v >>> 8), (byte) v};
    }

    /** Per shard, its overfull claims. */
    public void stats(List<Map<String, Object>> shards) {
        for (int i = 0; i < shards.size(); i++) {
            shards.get(i).put("overfull", (long) overfull[i].count());
        }
    }

    /** Buckets per second for a namespace expecting {@code idsPerSecond}. */
    public static int slices(int idsPerSecond) {
        return (int) Math.min(MAX_SLICES, Math.max(1, (idsPerSecond + (long) TARGET_FILL - 1) / TARGET_FILL));
    }

    /** A namespace's 16-bit tag in its keys: namespaces that share one only share buckets, never claims. */
    static int namespaceTag(String namespace) {
        int h = 0;
        for (byte b : namespace.getBytes(StandardCharsets.US_ASCII)) {
            h = 31 * h + b;
        }
        return (h ^ (h >>> 16)) & 0xffff;
    }

    /** A bucket as one long: namespace tag (16 bits), second (32), slice (16). */
    static long bucket(int namespaceTag, long second, long route, int slices) {
        long slice = Long.remainderUnsigned(route, slices);
        return ((long) namespaceTag << 48) | (second << 16) | slice;
    }

    /** The second a bucket's claims were made for. */
    static long second(long bucket) {
        return (bucket >>> 16) & 0xffff_ffffL;
    }

    static int shard(long bucket, int shards) {
        return JumpHash.shard(placement(bucket), shards);
    }

    /** What places a bucket among shards: its bits mixed, so neighbouring seconds and slices spread. */
    static long placement(long bucket) {
        long h = bucket * 0x9E3779B97F4A7C15L;
        return h ^ (h >>> 29);
    }

    /** {@code <prefix>{t<the bucket's 8 bytes>}}: a bucket's key (on a cluster, after its group's tag). */
    byte[] key(int shard, long bucket) {
        return keys.hashTagged(shard, "t", bucket, 8);
    }

    /** The owner's tag kept in Redis: the low 32 bits of its fingerprint, never 0 (the tombstone). */
    static int ownerTag(long ownerFingerprint) {
        int tag = (int) ownerFingerprint;
        return tag == 0 ? 1 : tag;
    }

    /** Writes one item at {@code at}: u16 key index (1-based), the 7-byte field, the 4-byte owner tag. */
    static void item(byte[] a, int at, int keyIndex, long key, int ownerTag) {
        a[at] = (byte) (keyIndex >>> 8);
        a[at + 1] = (byte) keyIndex;
        for (int i = 0; i < FingerprintTable.Records.FIELD_BYTES; i++) {
            a[at + 2 + i] = (byte) (key >>> (56 - 8 * i));
        }
        a[at + 9] = (byte) (ownerTag >>> 24);
        a[at + 10] = (byte) (ownerTag >>> 16);
        a[at + 11] = (byte) (ownerTag >>> 8);
        a[at + 12] = (byte) ownerTag;
    }
}
