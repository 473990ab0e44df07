package dev.dedup.agent.store.redis.layout;

import dev.dedup.agent.metrics.MetricNames;
import dev.dedup.agent.store.ClaimPolicy;
import dev.dedup.agent.store.redis.access.RedisKeys;
import dev.dedup.agent.store.redis.gather.CallPlan;
import dev.dedup.codec.Batch;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * One window's fingerprint table: its name in Redis ({@code f<window ms>}, or {@code s<window ms>} when the window
 * slides; {@code e<window ms>.<namespace>} for one namespace's claims with an event time, whose ends count on its
 * event clock), its keys on every shard, and per shard the {@link State} this agent last saw, by which it addresses the
 * table's buckets; how a batch's items are addressed by those states ({@link #plan}); and the records the buckets
 * hold, byte by byte ({@link Records}).
 */
final class FingerprintTable {

    /**
     * Mean records a bucket may hold before the table splits one more: a claim reads its whole bucket (about 1.7 ns
     * a byte in Redis's Lua), and a Redis key costs about 80 bytes, so this is where both stay small.
     */
    static final int SPLIT_ABOVE = 48;
    /** Mean records a bucket holds below which the table merges its last split back. */
    static final int MERGE_BELOW = 16;

    /** A change of a table's size, and its {@code table.lua} argument. */
    enum Resize {
        SPLIT('s'),
        MERGE('m');

        final byte arg;

        Resize(char arg) {
            this.arg = (byte) arg;
        }
    }

    final String name;
    final boolean sliding;
    /** Whether its claims carry event times: their ends count on the event clock kept in its state. */
    final boolean eventTime;
    /** The namespace whose claims with an event time it holds; null for a window's table. */
    final String namespace;

    final long windowMillis;
    final byte[] nameArg;
    /** The window in whole seconds, rounded up, in ASCII. */
    final byte[] windowSecondsArg;
    /** Per shard, the key of the table's state: a hash of level, split and claims. */
    final byte[][] stateKeys;
    /** Per shard, the key of the set of tables the shard holds. */
    final byte[][] setKeys;
    /** Per shard, what every bucket key of the table starts with; the bucket's number follows in 4 bytes. */
    final byte[][] bucketHeads;

    private final AtomicReferenceArray<State> states;
    /** Per shard, whether a split or merge of this agent's is under way. */
    private final AtomicBoolean[] resizing;

    private final int baseBits;

    FingerprintTable(String name, int shards, RedisKeys keys, int baseBits, MeterRegistry registry) {
        this.name = name;
        this.sliding = name.charAt(0) == 's';
        this.eventTime = name.charAt(0) == 'e';
        int dot = name.indexOf('.');
        this.namespace = eventTime && dot > 0 ? name.substring(dot + 1) : null;
        this.windowMillis = Long.parseLong(name.substring(1, eventTime && dot > 0 ? dot : name.length()));
        this.nameArg = name.getBytes(StandardCharsets.US_ASCII);
        this.windowSecondsArg = RedisKeys.ascii(-Math.floorDiv(-windowMillis, 1000L));
        this.stateKeys = new byte[shards][];
        this.setKeys = new byte[shards][];
        this.bucketHeads = new byte[shards][];
        this.states = new AtomicReferenceArray<>(shards);
        this.resizing = new AtomicBoolean[shards];
        this.baseBits = baseBits;
        for (int s = 0; s < shards; s++) {
            stateKeys[s] = stateKey(keys, s, name);
            setKeys[s] = setKey(keys, s);
            bucketHeads[s] = bucketHead(keys, s, name);
            states.set(s, State.EMPTY);
            resizing[s] = new AtomicBoolean();
            int shard = s;
            Gauge.builder(
                            MetricNames.REDIS_TABLE_BUCKETS,
                            () -> states.get(shard).buckets(baseBits))
                    .tags(MetricNames.TAG_SHARD, String.valueOf(s), "table", name)
                    .description("Buckets of a fingerprint table, as this agent last saw it")
                    .register(registry);
            Gauge.builder(
                            MetricNames.REDIS_TABLE_CLAIMS,
                            () -> states.get(shard).claims())
                    .tags(MetricNames.TAG_SHARD, String.valueOf(s), "table", name)
                    .description("Records a fingerprint table holds, as this agent last saw it")
                    .register(registry);
        }
    }

    /**
     * Records what a shard said of the table: the state this agent addresses its buckets by from now on. Returns
     * the change of size it is due ({@link State#due}) when this agent is to make it, one at a time per table and
     * shard; null when none is due or one is under way ({@link TableResizing}).
     */
    Resize observe(int shard, State state) {
        states.set(shard, state);
        Resize due = state.due(baseBits);
        return due != null && resizing[shard].compareAndSet(false, true) ? due : null;
    }

    /** The table of claims kept under {@code policy}: {@code f<window ms>}, or {@code s<window ms>} when it slides. */
    static String nameOf(ClaimPolicy policy) {
        return (policy.sliding() ? "s" : "f") + policy.windowMillis();
    }

    /**
     * The table of a namespace's claims with an event time, {@code e<window ms>.<namespace>}: a table of its own,
     * since its ends count on the namespace's event clock, kept in the table's state.
     */
    static String eventTimeNameOf(ClaimPolicy policy, String namespace) {
        return "e" + policy.windowMillis() + "." + namespace;
    }

    /**
     * The state of table {@code table} on a shard ({@code <prefix>:t:<table>}, or {@code
     * <prefix>{<group tag>}:t:<table>} on a cluster): its level, split pointer and records.
     */
    static byte[] stateKey(RedisKeys keys, int shard, String table) {
        return keys.named(shard, ":t:" + table);
    }

    /** The set of fingerprint tables a shard holds: {@code <prefix>:tables}. */
    static byte[] setKey(RedisKeys keys, int shard) {
        return keys.named(shard, ":tables");
    }

    /**
     * What every bucket key of table {@code table} starts with on a shard, {@code <prefix>:b<table>:}, followed by
     * the bucket's number in 4 bytes, big-endian. No key of another kind starts so.
     */
    static byte[] bucketHead(RedisKeys keys, int shard, String table) {
        return keys.named(shard, ":b" + table + ":");
    }

    /** Bucket {@code bucket}'s key on {@code shard}. */
    byte[] bucketKey(int shard, long bucket) {
        byte[] head = bucketHeads[shard];
        byte[] key = Arrays.copyOf(head, head.length + 4);
        for (int i = 0; i < 4; i++) {
            key[head.length + i] = (byte) (bucket >>> (24 - 8 * i));
        }
        return key;
    }

    /**
     * The items at {@code positions} of {@code batch} as calls, addressed by {@code view} (per shard, the state this
     * agent last saw), item {@code i} on shard {@code shard[i]} with the owner-and-end {@code value[i]}; a bucket's
     * key argument is its number, u32 big-endian. An item's answer goes to its place in {@code positions}.
     */
    CallPlan plan(Batch batch, int[] shard, long[] value, int[] positions, State[] view, int shards) {
        CallPlan plan = new CallPlan(shards, positions.length, Records.ITEM_BYTES, 4, CallPlan.MAX_ITEMS_PER_CALL);
        byte[] item = new byte[Records.ITEM_BYTES];
        for (int j = 0; j < positions.length; j++) {
            int i = positions[j];
            int s = shard[i];
            long route = Records.lowRoute(batch.route(i));
            long bucket = view[s].bucket(baseBits, route);
            int k = plan.keyIndex(s, bucket);
            if (k == 0) {
                k = plan.name(s, bucket, bucketKey(s, bucket), number(bucket));
            }
            Records.item(item, 0, k, batch.key(i), route, baseBits, value[i]);
            plan.add(s, j, item);
        }
        return plan;
    }

    /** A bucket's number as the scripts read it: u32 big-endian. */
    static byte[] number(long bucket) {
        return new byte[] {(byte) (bucket >>> 24), (byte) (bucket >>> 16), (byte) (bucket >>> 8), (byte) bucket};
    }

    /** The state this agent last saw on {@code shard}. */
    State state(int shard) {
        return states.get(shard);
    }

    /** The states this agent last saw, a shard's at its index: what a batch's calls are addressed by. */
    State[] view() {
        State[] view = new State[states.length()];
        for (int s = 0; s < view.length; s++) {
            view[s] = states.get(s);
        }
        return view;
    }

    /** Whether a change of size of this agent's is under way on {@code shard}. */
    boolean resizing(int shard) {
        return resizing[shard].get();
    }

    /** Says that this agent's change of size on {@code shard} is over: the next one due may begin. */
    void resized(int shard) {
        resizing[shard].set(false);
    }

    /**
     * How the scripts are told what ends mean: {@code '1'} when the window slides (a repeat renews an end), {@code
     * 'e'} when ends count on the event clock in the table's state, else {@code '0'}; in either of the first two
     * a bucket's records do not end in the order they were written.
     */
    byte[] modeArg() {
        return new byte[] {(byte) (sliding ? '1' : eventTime ? 'e' : '0')};
    }

    /**
     * The epoch second of an event clock a script answered, modulo 2^28 ({@link Records#END_RANGE}): the one
     * nearest the wall clock {@code nowMillis}.
     */
    static long clockSecond(long answered, long nowMillis) {
        long wall = Math.floorDiv(nowMillis, 1000L);
        long half = Records.END_RANGE / 2;
        return wall + Math.floorMod(answered - wall + half, Records.END_RANGE) - half;
    }

    /**
     * Where a fingerprint table stands on one shard: its linear-hashing level and split pointer, which say how many
     * buckets it has and which bucket holds an id, and the records it holds. A table of base {@code b} at level
     * {@code L} with split pointer {@code p} has {@code 2^b * 2^L + p} buckets: an id whose route's low bits
     * {@code h} give {@code a = h mod 2^(b+L)} is in bucket {@code a}, unless {@code a < p} (bucket {@code a} has
     * been split), then in {@code h mod 2^(b+L+1)}. The table grows by linear hashing: it is {@linkplain #due due}
     * a split of its next buckets whenever it holds more than {@value #SPLIT_ABOVE} records a bucket on average, and a
     * merge of its last splits below {@value #MERGE_BELOW}.
     *
     * @param level  doublings of the base so far
     * @param split  the next bucket to split, below {@code 2^(base + level)}
     * @param claims records the table holds (live, ended but not yet dropped, released): what sizes it
     */
    record State(int level, long split, long claims) {

        static final State EMPTY = new State(0, 0, 0);

        /** Buckets of a table of {@code baseBits} in this state. */
        long buckets(int baseBits) {
            return (1L << (baseBits + level)) + split;
        }

        /** The bucket holding an id whose route's low bits are {@code route} (only the low {@code base + 16} count). */
        long bucket(int baseBits, long route) {
            long low = 1L << (baseBits + level);
            long a = route & (low - 1);
            return a < split ? route & (2 * low - 1) : a;
        }

        /**
         * What a table of {@code baseBits} in this state is due: a split when it holds more than {@value
         * #SPLIT_ABOVE} records a bucket (and may still split by the records' route bits), a merge when it holds
         * fewer than {@value #MERGE_BELOW} and has more than its base; null when neither.
         */
        Resize due(int baseBits) {
            long buckets = buckets(baseBits);
            if (claims > SPLIT_ABOVE * buckets && level < Records.ROUTE_BITS) {
                return Resize.SPLIT;
            }
            if (claims < MERGE_BELOW * buckets && buckets > (1L << baseBits)) {
                return Resize.MERGE;
            }
            return null;
        }

        /**
         * The pairs one call of {@code change} splits or merges in this state, as bucket numbers: bucket {@code q},
         * then its image, pair after pair. A split takes the buckets from the split pointer on, up to the end of the
         * level; a merge the last split back, stepping back a level when the pointer reaches 0. As many pairs as
         * bring the table to its mean (to {@value #SPLIT_ABOVE} records a bucket when it grows, between the two
         * bounds when it shrinks), at least one and at most {@code most}.
         */
        long[] pairs(Resize change, int baseBits, int most) {
            long buckets = buckets(baseBits);
            int level = this.level;
            long split = this.split;
            boolean grow = change == Resize.SPLIT;
            long wanted = grow
                    ? (claims + SPLIT_ABOVE - 1) / SPLIT_ABOVE - buckets
                    : buckets - Math.max(1L << baseBits, claims / ((SPLIT_ABOVE + MERGE_BELOW) / 2));
            long pairs = Math.max(1, Math.min(most, wanted));
            long[] out = new long[(int) pairs * 2];
            int n = 0;
            for (long j = 0; j < pairs; j++) {
                if (grow) {
                    long low = 1L << (baseBits + level);
                    if (split >= low) {
                        break; // the rest of this level's splits go in the next call
                    }
                    out[n++] = split;
                    out[n++] = split + low;
                    split++;
                } else {
                    if (split == 0) {
                        if (level == 0) {
                            break;
                        }
                        level--;
                        split = 1L << (baseBits + level);
                    }
                    split--;
                    out[n++] = split;
                    out[n++] = split + (1L << (baseBits + level));
                }
            }
            return Arrays.copyOf(out, n);
        }

        /** What the scripts are told: {@code "<level> <split>"}. */
        String view() {
            return level + " " + split;
        }

        /** The state a script answered as its values 1 to 3: level, split, claims. */
        static State of(List<Object> script) {
            return new State(number(script, 1).intValue(), number(script, 2), number(script, 3));
        }

        private static Long number(List<Object> script, int i) {
            return script.size() > i && script.get(i) instanceof Long n ? n : 0L;
        }
    }

    /**
     * The table's records, and the item a claim call carries for one, byte by byte: the Java side of {@code
     * records.lua}, whose header describes the record (16 bytes: the id's 7-byte field, the 16 bits of its route
     * above the table's base bits, the owner's 28-bit tag and the second its claim ends, modulo 2^28). An id's
     * 64-bit route places it: its high half picks the shard, its low half the bucket. An item is the record behind
     * a u16 key index (1-based: the bucket's key among the call's keys) and the low 16 bits of the route, by which
     * {@code claims.lua} finds a bucket that moved.
     */
    static final class Records {

        static final int FIELD_BYTES = 7;
        /** u16 key index, u16 low bits of the route, the 16-byte record. */
        static final int ITEM_BYTES = 20;
        /** Where an item's field starts. */
        static final int FIELD_AT = 4;
        /** Route bits a record keeps above the base: what a table can split by. */
        static final int ROUTE_BITS = 16;

        static final int OWNER_TAG_BITS = 28;
        /** Ends of claims are kept modulo this many seconds (8.5 years). */
        static final long END_RANGE = 1L << 28;

        private Records() {}

        /** What places an id among shards: the high half of its route. */
        static long shardKey(long route) {
            return route >>> 32;
        }

        /** What places an id in its shard's table: the low half of its route. */
        static long lowRoute(long route) {
            return route & 0xffff_ffffL;
        }

        static int ownerTag(long ownerFingerprint) {
            int tag = (int) (ownerFingerprint & ((1 << OWNER_TAG_BITS) - 1));
            return tag == 0 ? 1 : tag;
        }

        /** A record's last 7 bytes as a long: the owner's tag, then the second its claim ends (modulo 2^28). */
        static long ownerAndEnd(int ownerTag, long endSecond) {
            return ((long) ownerTag << OWNER_TAG_BITS) | endSecond;
        }

        /** Now as the scripts compare ends with it: whole seconds modulo 2^28, in ASCII. */
        static byte[] now(long nowMillis) {
            return Long.toString(Math.floorMod(Math.floorDiv(nowMillis, 1000L), END_RANGE))
                    .getBytes(StandardCharsets.US_ASCII);
        }

        /**
         * Writes one item at {@code at}: u16 key index (1-based), the low 16 bits of the route, then the record: the
         * 7-byte field, the route's 16 bits above the base, the 7-byte owner tag and end.
         */
        static void item(byte[] a, int at, int keyIndex, long key, long route, int baseBits, long value) {
            a[at] = (byte) (keyIndex >>> 8);
            a[at + 1] = (byte) keyIndex;
            a[at + 2] = (byte) (route >>> 8);
            a[at + 3] = (byte) route;
            for (int i = 0; i < FIELD_BYTES; i++) {
                a[at + 4 + i] = (byte) (key >>> (56 - 8 * i));
            }
            long high = route >>> baseBits;
            a[at + 11] = (byte) (high >>> 8);
            a[at + 12] = (byte) high;
            for (int i = 0; i < 7; i++) {
                a[at + 13 + i] = (byte) (value >>> (48 - 8 * i));
            }
        }
    }
}
