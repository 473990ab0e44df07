package dev.dedup.agent.store.redis;

import dev.dedup.agent.config.RedisOptions;
import dev.dedup.agent.metrics.MetricNames;
import dev.dedup.agent.store.ClaimPolicy;
import dev.dedup.codec.Batch;
import dev.dedup.routing.JumpHash;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.lang.System.Logger.Level;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Function;

/**
 * The fingerprint layout: claims of namespaces not filed by event time, written by {@code dedup.lua}
 * and swept hourly by {@code sweep.lua} (both after {@code levels.lua}).
 *
 * <p>An id's route half chooses its <b>bucket</b> (one of {@code buckets}) and the bucket its
 * <b>shard</b> (jump hash). A bucket is a Redis hash {@code <prefix>{<4-byte bucket>}}; when it holds
 * {@code levelEntries} claims the next ones go to a second level, the same key plus one byte, and so on,
 * so each level stays a listpack whatever the volume. A level beyond the first holds claims only while
 * every level before it is full, so while the first level of a bucket has room an id can only be there.
 *
 * <p>On standalone shards of layout v2 (the {@code <prefix>:layout} record every fresh shard gets; see {@link
 * #agreeOrRefuse}) a bucket that fills its first level is <b>marked</b>: the level moves to the name plus a zero
 * byte and a string takes the bucket's name, so that a claim's {@code HSETNX} on the name either decides the id
 * alone or fails {@code WRONGTYPE}, and no claim reads a level's length first ({@code levels.lua}).
 *
 * <p>A script call declares in {@code KEYS} each bucket's first level. While a slot of a Redis Cluster
 * migrates, its keys move a {@code MIGRATE} batch at a time and a node redirects ({@code ASK}) or refuses
 * ({@code TRYAGAIN}) a call by the keys it declares only: a level read without being declared would look
 * empty on the node it has not reached yet, and a claim in it would be answered {@code new}. So on a cluster
 * a call whose buckets may need another level (a first level full, or filled by the call's claims) answers
 * so before it writes anything, and is sent again with every level of its buckets declared ({@link
 * #declaredLevels}); declaring them always cost a cluster a quarter to a third of its rate. Standalone
 * shards have no migration, and name the other levels in the script.
 *
 * <p>A claim is one hash entry: the field is the top 56 bits of the id's key (7 bytes), the value 6
 * bytes, a 28-bit owner tag and the 20-bit second its claim expires, compared modulo 2^20 (12 days;
 * windows are capped at 5 days, every bucket is swept of expired claims hourly and level keys expire 5
 * days and 2 hours after their last write or sweep, so a stale expiry never passes for a live one). A
 * 7-byte field and a 6-byte value make ~18.3 bytes of Redis memory per claim, measured (an 8-byte field
 * and a 6-byte value, 20.9: listpacks grow in steps). An unclaimed id is taken for a claimed one with
 * probability at most {@code level-entries / 2^56} (5·10⁻¹⁵ per id at 384); two owners of one id share a
 * tag with probability {@code 2^-28}, which answers a duplicate {@code retry} (processed twice, never
 * dropped).
 */
final class FingerprintBuckets {

    private static final System.Logger LOG = System.getLogger(FingerprintBuckets.class.getName());

    /** Seconds of expiry kept: 2^20. */
    static final int EXPIRY_RANGE = 1 << 20;

    static final int OWNER_TAG_BITS = 28;
    static final int FIELD_BYTES = 7;
    /**
     * u16 bucket index, 7-byte field, 6-byte value. The index counts buckets, not keys: a call has at most
     * {@link ShardCalls#MAX_ITEMS_PER_CALL} buckets, however many keys each declares.
     */
    static final int ITEM_BYTES = 15;
    /** Every bucket is swept of expired claims once per this period (by one agent among all). */
    static final long SWEEP_PERIOD_SECONDS = 3600;
    /**
     * TTL of a level key, refreshed when it is written first and at every sweep: longer than any claim
     * in it can live, so keys vanish only when the agents stop sweeping, and short enough that a stale
     * expiry, kept modulo 2^20 seconds, can never pass for a live one.
     */
    static final long KEY_TTL_MILLIS = (RedisOptions.MAX_WINDOW.toSeconds() + 2 * SWEEP_PERIOD_SECONDS) * 1000;

    private static final byte[] ONE = {'1'};
    private static final byte[] FIRST_LEVELS_ONLY = {'2'};
    /** The count {@code dedup.lua} answers, with no verdicts, when its buckets' other levels must be declared. */
    static final long NEEDS_LEVELS = -1;

    private static final byte[] ZERO = {'0'};
    /** The claim script's flag on standalone shards of layout v2: buckets may be marked. */
    private static final byte[] MARKED = {'3'};
    /** The sweep's flag of it. */
    private static final byte[] SWEEP_MARKED = {'2'};
    /**
     * Claims a level keeps below the server's {@code hash-max-listpack-entries}, besides 2, where buckets may be
     * marked (at most a quarter of it): a bucket is marked once one of the new claims that read its length
     * (one in 8 when levels hold 128 or more, more often below) finds it full, so it may grow past {@code levelEntries}
     * meanwhile; it outgrows the listpack only after 34 new claims in a row that do not read it ((7/8)^34,
     * 1 %), which costs memory, never a claim.
     */
    static final int MARKED_MARGIN = 32;

    private final RedisPort port;
    private final Routing routing;
    private final Moves moves;
    private final RedisKeys keys;
    private final int buckets;
    /** Claims a level holds: what the server allows, less the margin of layout v2 when the shards have it. */
    private volatile int levelEntries;

    private final int maxLevels;
    private final byte[] channel;
    private volatile byte[] capArg;
    private final byte[] keyTtlArg = RedisKeys.ascii(KEY_TTL_MILLIS);
    private final byte[] levelsArg;
    /** Keys each bucket declares in a sweep, or in a claim sent again: 1, or every level on a Redis Cluster. */
    private final int declaredLevels;
    /** The sweep's flag of it: '1' when every level is declared, '2' when buckets may be marked, else '0'. */
    private volatile byte[] declaredArg;
    /**
     * The claim script's flag of a first call: '0' standalone, '3' standalone with marked buckets (layout v2),
     * '2' a cluster (levels on demand).
     */
    private volatile byte[] firstCallArg;
    /** The server's hash-max-listpack-entries, least over the shards (0: not read), and the entries asked for. */
    private final int serverListpackEntries;

    private final int askedLevelEntries;

    private final Counter[] evictions;
    /** Calls sent again with every level declared, per shard (group, on a cluster). */
    private final Counter[] levelsDeclared;
    /** Buckets whose first level claim calls read, per shard, and the claims those levels held then. */
    private final Counter[] bucketsRead;

    private final Counter[] bucketClaimsRead;

    private final CallGathering gathering;

    /**
     * Reads each shard's {@code hash-max-listpack-entries} and keeps levels below it, so that every level
     * stays a listpack.
     */
    FingerprintBuckets(
            RedisPort port,
            Routing routing,
            Moves moves,
            RedisOptions options,
            RedisKeys keys,
            MeterRegistry registry) {
        this.port = port;
        this.routing = routing;
        this.moves = moves;
        this.keys = keys;
        this.buckets = options.buckets();
        this.maxLevels = options.maxLevels();
        this.channel = keys.releaseChannel();
        this.askedLevelEntries = options.levelEntries();
        int least = 0;
        for (int s = 0; s < port.shards(); s++) {
            int serverMax = port.listpackEntries(s);
            if (serverMax > 0 && (least == 0 || serverMax < least)) {
                least = serverMax;
            }
        }
        this.serverListpackEntries = least;
        this.levelsArg = RedisKeys.ascii(maxLevels);
        this.declaredLevels = declaredLevels(keys, maxLevels);
        useLayout(false);
        this.gathering = new CallGathering(port, RedisScript.DEDUP, ITEM_BYTES, registry);
        this.evictions = ShardCounters.of(
                registry,
                port,
                MetricNames.REDIS_EVICTIONS,
                "Live claims forgotten because every level of their bucket was full");
        this.levelsDeclared = ShardCounters.of(
                registry,
                port,
                MetricNames.REDIS_LEVELS_DECLARED,
                "Claim and release calls sent again with every level of their buckets declared (a Redis Cluster):"
                        + " buckets beyond their first level");
        this.bucketsRead = ShardCounters.of(
                registry,
                port,
                MetricNames.REDIS_BUCKETS_READ,
                "Buckets whose first level a claim call read (each once per call)");
        this.bucketClaimsRead = ShardCounters.of(
                registry,
                port,
                MetricNames.REDIS_BUCKET_CLAIMS_READ,
                "Claims the first levels read by claim calls held: divided by dedup_redis_buckets_read_total, the"
                        + " mean a new id's HSETNX searches");
    }

    CompletionStage<byte[]> claim(Batch batch, ClaimPolicy policy, long nowMillis) {
        int expiry = (int) Math.floorMod(policy.endSecond(Batch.NO_EVENT_TIME, nowMillis), (long) EXPIRY_RANGE);
        return run(batch, Mode.CLAIM, expiry, policy.sliding(), nowMillis);
    }

    CompletionStage<byte[]> release(Batch batch, long nowMillis) {
        return run(batch, Mode.RELEASE, 0, false, nowMillis);
    }

    private CompletionStage<byte[]> run(Batch batch, Mode mode, int expiry, boolean sliding, long nowMillis) {
        if (!routing.inTransition() || !routing.cutOver()) {
            return runRouted(batch, mode, expiry, sliding, nowMillis);
        }
        long[] touched = new long[batch.size()];
        for (int i = 0; i < touched.length; i++) {
            touched[i] = bucket(batch.route(i), buckets);
        }
        return moves.buckets(touched, touched.length)
                .thenCompose(arrived -> runRouted(batch, mode, expiry, sliding, nowMillis));
    }

    private CompletionStage<byte[]> runRouted(Batch batch, Mode mode, int expiry, boolean sliding, long nowMillis) {
        ShardCalls calls = ShardCalls.plan(
                batch.size(),
                packing(batch, expiry, buckets, routing, keys),
                port.shards(),
                ShardCalls.MAX_ITEMS_PER_CALL);
        long nowSecond = Math.floorDiv(nowMillis, 1000L);
        byte[] now = RedisKeys.ascii(nowSecond);
        byte[] slidingArg = sliding ? ONE : ZERO;
        Function<ShardCalls.Call, byte[][]> argsOf = call -> new byte[][] {
            mode.arg(), call.items(), capArg, channel, now, keyTtlArg, levelsArg, slidingArg, firstCallArg
        };
        Object sameArgs = List.of(nowSecond, sliding);
        return calls.run(
                port,
                call -> gathering
                        .submit(call, mode, sameArgs, argsOf)
                        .thenCompose(reply -> reply.count() == NEEDS_LEVELS
                                ? withEveryLevel(call, mode, argsOf)
                                : CompletableFuture.completedFuture(reply))
                        .thenApply(reply -> countReads(call.shard(), reply)),
                evictions);
    }

    /** Counts what a claim call read of its buckets' first levels (dedup.lua's last two counts). */
    private CallGathering.Reply countReads(int shard, CallGathering.Reply reply) {
        if (reply.bucketsRead() > 0) {
            bucketsRead[shard].increment(reply.bucketsRead());
            bucketClaimsRead[shard].increment(reply.claimsRead());
        }
        return reply;
    }

    /**
     * Sends {@code call} again, alone, with every level of its buckets declared: its first sending (first
     * levels only, on a Redis Cluster) answered that one of them may need another level, and wrote nothing.
     */
    private CompletionStage<CallGathering.Reply> withEveryLevel(
            ShardCalls.Call call, Mode mode, Function<ShardCalls.Call, byte[][]> argsOf) {
        List<byte[]> all = new ArrayList<>();
        for (long bucket : call.buckets()) {
            java.util.Collections.addAll(all, bucketKeys(keys, call.shard(), (int) bucket, declaredLevels));
        }
        levelsDeclared[call.shard()].increment();
        byte[][] args = argsOf.apply(call);
        args[args.length - 1] = declaredArg;
        return port.eval(call.shard(), RedisScript.DEDUP, mode, all.toArray(byte[][]::new), args)
                .thenApply(CallGathering.Reply::of);
    }

    /** Sets what the layout (v2: buckets may be marked) decides: the claims a level holds, the scripts' flags. */
    private void useLayout(boolean marked) {
        int entries = askedLevelEntries;
        int allowed = serverListpackEntries - 2 - (marked ? margin(serverListpackEntries) : 0);
        if (serverListpackEntries > 0 && entries > allowed) {
            entries = allowed;
        }
        this.levelEntries = Math.max(1, entries);
        this.capArg = RedisKeys.ascii(levelEntries);
        this.declaredArg = declaredLevels > 1 ? ONE : marked ? SWEEP_MARKED : ZERO;
        this.firstCallArg = declaredLevels > 1 ? FIRST_LEVELS_ONLY : marked ? MARKED : ZERO;
    }

    /** Of layout v2: {@link #MARKED_MARGIN}, or a quarter of a smaller server limit. */
    static int margin(int serverListpackEntries) {
        return Math.min(MARKED_MARGIN, serverListpackEntries / 4);
    }

    private String layout(int version) {
        return "dedup-layout v" + version + " buckets=" + buckets + " level-entries=" + levelEntries + " max-levels="
                + maxLevels;
    }

    /**
     * Checks, or stamps, every shard's record of this layout ({@code <prefix>:layout}: its version, buckets,
     * claims per level and levels), which decide where an id is looked for: an agent with other values would not
     * find the claims made before and answer their copies {@code new}. Standalone shards that hold no record, or
     * a record of v2, have layout v2 (buckets may be marked: {@code levels.lua}); shards of a deployment started
     * before it keep v1 (a first level's length read before every claim), which agents of either version share.
     * A Redis Cluster has v1.
     *
     * @throws ConfigException naming what differs (the agent exits 2)
     */
    void agreeOrRefuse(String keyPrefix) {
        byte[] key = layoutKey(keyPrefix);
        boolean marked = !keys.clustered();
        for (int s = 0; s < port.shards() && marked; s++) {
            marked = !layoutRecord(s, key, "").startsWith("dedup-layout v1 ");
        }
        useLayout(marked);
        if (levelEntries < askedLevelEntries) {
            LOG.log(
                    Level.WARNING,
                    "redis shards have hash-max-listpack-entries " + serverListpackEntries + "; bucket levels hold "
                            + levelEntries + " claims instead of " + askedLevelEntries + " (2 below it"
                            + (marked ? ", and " + margin(serverListpackEntries) + " more for layout v2)" : ")"));
        }
        String mine = layout(marked ? 2 : 1);
        for (int s = 0; s < port.shards(); s++) {
            String held = layoutRecord(s, key, mine);
            if (!held.equals(mine)) {
                throw new dev.dedup.agent.config.ConfigException("redis: shard " + port.name(s) + " was written with "
                        + held.replace("dedup-", "") + ", this agent has " + mine.replace("dedup-", "")
                        + " (--redis-buckets, --redis-level-entries, --redis-max-levels, the last two as the"
                        + " server's hash-max-listpack-entries allows):"
                        + " claims made before would not be found. Start with the values the shards were"
                        + " written with");
            }
        }
    }

    /**
     * {@code options} with the bucket count an agent not told one ({@link RedisOptions#RECORDED_BUCKETS}) takes:
     * the count of the first shard whose layout record has one, else {@link RedisOptions#DEFAULT_BUCKETS}, which
     * {@link #agreeOrRefuse} then stamps. A count given explicitly is kept, and checked there.
     */
    static RedisOptions withRecordedBuckets(RedisOptions options, RedisPort port) {
        if (options.buckets() != RedisOptions.RECORDED_BUCKETS) {
            return options;
        }
        byte[] key = layoutKey(options.keyPrefix());
        for (int s = 0; s < port.shards(); s++) {
            int recorded = recordedBuckets(layoutRecord(port, s, key, ""));
            if (recorded > 0) {
                LOG.log(Level.INFO, "redis: " + recorded + " buckets, as shard " + port.name(s) + " recorded");
                return options.withBuckets(recorded);
            }
        }
        return options.withBuckets(RedisOptions.DEFAULT_BUCKETS);
    }

    /** The {@code buckets=} count of a layout record; 0 when it has none. */
    static int recordedBuckets(String record) {
        for (String part : record.split(" ")) {
            if (part.startsWith("buckets=")) {
                try {
                    return Integer.parseInt(part.substring("buckets=".length()));
                } catch (NumberFormatException e) {
                    return 0;
                }
            }
        }
        return 0;
    }

    private static byte[] layoutKey(String keyPrefix) {
        return (keyPrefix + ":layout").getBytes(java.nio.charset.StandardCharsets.US_ASCII);
    }

    /** Shard {@code s}'s layout record, stamped {@code mine} when it held none ('' only reads it); '' for none. */
    private String layoutRecord(int s, byte[] key, String mine) {
        return layoutRecord(port, s, key, mine);
    }

    private static String layoutRecord(RedisPort port, int s, byte[] key, String mine) {
        List<Object> reply = port.eval(s, RedisScript.TOPOLOGY, Mode.TOPOLOGY, new byte[][] {key}, new byte[][] {
                    mine.getBytes(java.nio.charset.StandardCharsets.US_ASCII)
                })
                .toCompletableFuture()
                .join();
        return new String((byte[]) reply.get(0), java.nio.charset.StandardCharsets.US_ASCII);
    }

    /** Buckets over all shards. */
    int buckets() {
        return buckets;
    }

    /**
     * Sweeps buckets {@code [from, to)} of expired claims on every shard, unless an agent already swept
     * this {@code slot} of range {@code range}; returns the claims removed.
     */
    CompletionStage<Long> sweep(int from, int to, long slot, int range, long nowMillis) {
        List<List<byte[]>> keysByShard = new ArrayList<>();
        for (int s = 0; s < port.shards(); s++) {
            List<byte[]> shardKeys = new ArrayList<>();
            shardKeys.add(keys.sweepMarker(s, range));
            keysByShard.add(shardKeys);
        }
        for (int bucket = from; bucket < to; bucket++) {
            int shard = routing.shard(bucket);
            java.util.Collections.addAll(keysByShard.get(shard), bucketKeys(keys, shard, bucket, declaredLevels));
        }
        byte[][] args = {
            RedisKeys.ascii(slot),
            RedisKeys.ascii(Math.floorDiv(nowMillis, 1000L)),
            keyTtlArg,
            capArg,
            levelsArg,
            declaredArg
        };
        List<CompletableFuture<Long>> pending = new ArrayList<>();
        for (int s = 0; s < port.shards(); s++) {
            List<byte[]> shardKeys = keysByShard.get(s);
            if (shardKeys.size() > 1) {
                pending.add(port.eval(s, RedisScript.SWEEP, Mode.SWEEP, shardKeys.toArray(byte[][]::new), args)
                        .thenApply(reply -> (Long) reply.get(1))
                        .toCompletableFuture());
            }
        }
        return CompletableFuture.allOf(pending.toArray(CompletableFuture[]::new))
                .thenApply(ignored ->
                        pending.stream().mapToLong(CompletableFuture::join).sum());
    }

    /** {@code layout}, {@code level_entries}, {@code max_levels}, {@code buckets}, and per shard its evictions. */
    void stats(Map<String, Object> s, List<Map<String, Object>> shards) {
        s.put("buckets", buckets);
        s.put("layout", firstCallArg == MARKED ? "v2" : "v1");
        s.put("level_entries", levelEntries);
        s.put("max_levels", maxLevels);
        for (int i = 0; i < shards.size(); i++) {
            shards.get(i).put("evictions", (long) evictions[i].count());
            double read = bucketsRead[i].count();
            shards.get(i).put("buckets_read", (long) read);
            shards.get(i)
                    .put(
                            "bucket_claims_mean",
                            read == 0 ? 0.0 : Math.round(bucketClaimsRead[i].count() / read * 10) / 10.0);
        }
    }

    static int bucket(long route, int buckets) {
        return (int) Long.remainderUnsigned(route, buckets);
    }

    static int shard(int bucket, int shards) {
        return JumpHash.shard(bucket, shards);
    }

    /**
     * {@code <prefix>{<bucket, 4 bytes big-endian>}}: level 0 of a bucket (on a cluster, {@code
     * <prefix>{<tag of group shard>}<bucket>}).
     */
    static byte[] bucketKey(RedisKeys keys, int shard, int bucket) {
        return keys.hashTagged(shard, "", bucket, 4);
    }

    /**
     * Keys a bucket declares in a script call: on a Redis Cluster ({@link RedisKeys#clustered}) all {@code
     * maxLevels} levels, so that a slot's migration redirects or refuses a call by every key it may touch;
     * elsewhere level 0 only.
     */
    static int declaredLevels(RedisKeys keys, int maxLevels) {
        return keys.clustered() ? maxLevels : 1;
    }

    /** The first {@code levels} levels' keys of {@code bucket}: level 0's, then each one byte longer. */
    static byte[][] bucketKeys(RedisKeys keys, int shard, int bucket, int levels) {
        byte[][] out = new byte[levels][];
        out[0] = bucketKey(keys, shard, bucket);
        for (int l = 1; l < levels; l++) {
            out[l] = RedisKeys.levelKey(out[0], l);
        }
        return out;
    }

    /**
     * The batch's items in this layout, each with the claim's {@code expiry}, for {@link ShardCalls}: the
     * id's route half picks one of {@code buckets}, {@code routing} (jump hash) the bucket's shard; a call
     * declares each bucket's first level ({@link #withEveryLevel} sends a call again with all of them).
     */
    static ShardCalls.Packing packing(Batch batch, int expiry, int buckets, Routing routing, RedisKeys keys) {
        return new ShardCalls.Packing() {
            @Override
            public long bucket(int i) {
                return FingerprintBuckets.bucket(batch.route(i), buckets);
            }

            @Override
            public int shard(long bucket) {
                return routing.shard(bucket);
            }

            @Override
            public byte[] key(int shard, long bucket) {
                return bucketKey(keys, shard, (int) bucket);
            }

            @Override
            public int itemBytes() {
                return ITEM_BYTES;
            }

            @Override
            public void write(byte[] items, int at, int keyIndex, int i) {
                item(items, at, keyIndex, batch.key(i), ownerTag(batch.owner(i)), expiry);
            }
        };
    }

    static int ownerTag(long ownerFingerprint) {
        return (int) (ownerFingerprint & ((1 << OWNER_TAG_BITS) - 1));
    }

    /** Writes one item at {@code at}: u16 bucket index (1-based), the 7-byte field, the 6-byte value. */
    static void item(byte[] a, int at, int keyIndex, long key, int ownerTag, int expiry) {
        a[at] = (byte) (keyIndex >>> 8);
        a[at + 1] = (byte) keyIndex;
        for (int i = 0; i < FIELD_BYTES; i++) {
            a[at + 2 + i] = (byte) (key >>> (56 - 8 * i));
        }
        long value = ((long) ownerTag << 20) | expiry;
        for (int i = 0; i < 6; i++) {
            a[at + 9 + i] = (byte) (value >>> (40 - 8 * i));
        }
    }
}
