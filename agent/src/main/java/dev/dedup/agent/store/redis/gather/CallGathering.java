package dev.dedup.agent.store.redis.gather;

import dev.dedup.agent.metrics.MetricNames;
import dev.dedup.agent.store.redis.access.RedisPort;
import dev.dedup.agent.store.redis.access.RedisPort.Op;
import dev.dedup.agent.store.redis.access.RedisPort.Script;
import dev.dedup.agent.store.redis.access.ShardCounters;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Function;
import java.util.function.LongSupplier;

/**
 * Gathers the script calls that concurrent batches make on one shard into fewer, larger calls, so that what a
 * call costs a shard (the command, the script's start, a bucket read once for all its items) is paid once for
 * all of them.
 *
 * <p>A bounded gather: a call goes out at once while fewer than {@value #IN_FLIGHT} gathered calls of this
 * layout are in flight on its shard, so a request is never held while the shard is idle. Otherwise it waits
 * for the next answer from that shard, and everything that waited then goes out merged (calls that share
 * their arguments besides the items, at most {@link ShardCalls#MAX_ITEMS_PER_CALL} items a call), or with the
 * next call made once the oldest waiting call has waited {@value #MAX_HOLD_MICROS} µs. Over a network a held
 * call can so wait a round trip: ending the hold by a timer instead cost throughput when the shards are busy,
 * since fewer calls merge (docs/performance.md, "Over a network"). Items keep their order: a merged call
 * holds the calls in the order they came, each call's items in its own order, so two batches with one id are
 * decided as if the first had been sent first, and no batch's answers depend on which others it went with. A
 * merged call that fails fails every batch in it, all of which touched that shard.
 */
public final class CallGathering {

    /** Gathered calls of one layout in flight on a shard before the next ones wait to be merged. */
    static final int IN_FLIGHT = 2;

    /** Longest a call waits for a merge while its shard is busy. */
    static final long MAX_HOLD_MICROS = 500;

    /**
     * What a gathered call's batch gets back: its items' answers and the script's whole reply (the answers of
     * every batch merged into the call, and the script's other values, which only the call's {@code first} batch
     * should count). A reply without answers (a script that wrote nothing and said why) reaches every batch of
     * the call as it is.
     */
    public record Reply(byte[] answers, List<Object> script, boolean first) {

        /** The script's value at {@code i} as a number, or 0 when it has none there. */
        public long number(int i) {
            return script.size() > i && script.get(i) instanceof Long n ? n : 0;
        }
    }

    private final RedisPort port;
    private final Script script;
    private final int itemBytes;
    private final LongSupplier ticker;
    private final Lane[] lanes;
    private final Counter[] merged;

    /**
     * {@code ticker}: the store's monotonic clock, in nanoseconds ({@link
     * dev.dedup.agent.store.redis.access.Housekeeping#ticker}), which says how long a call has waited.
     */
    public CallGathering(RedisPort port, Script script, int itemBytes, MeterRegistry registry, LongSupplier ticker) {
        this.ticker = ticker;
        this.port = port;
        this.script = script;
        this.itemBytes = itemBytes;
        this.lanes = new Lane[port.shards()];
        this.merged = ShardCounters.of(
                registry,
                port,
                MetricNames.REDIS_GATHERED,
                "Script calls of concurrent batches that went out merged with others",
                "script",
                script.name());
        for (int s = 0; s < lanes.length; s++) {
            lanes[s] = new Lane(s);
        }
    }

    /**
     * Sends {@code call}, alone or merged with others of the same {@code sameArgs} (whatever makes the script's
     * arguments besides the items equal: mode, clock second, policy), whose arguments {@code argsOf} makes.
     */
    public CompletionStage<Reply> submit(
            ShardCalls.Call call, Op op, Object sameArgs, Function<ShardCalls.Call, byte[][]> argsOf) {
        return submit(call, op, sameArgs, argsOf, NO_KEYS);
    }

    /**
     * The same, with {@code moreKeys} after the call's buckets' keys: keys every call of these {@code sameArgs} on
     * the shard declares (a table's state).
     */
    public CompletionStage<Reply> submit(
            ShardCalls.Call call,
            Op op,
            Object sameArgs,
            Function<ShardCalls.Call, byte[][]> argsOf,
            byte[][] moreKeys) {
        Pending p = new Pending(call, op, sameArgs, argsOf, moreKeys, ticker.getAsLong());
        lanes[call.shard()].submit(p);
        return p.reply;
    }

    private static final byte[][] NO_KEYS = new byte[0][];

    /** A call submitted, waiting or in flight, with what it needs to be merged and answered. */
    record Pending(
            ShardCalls.Call call,
            Op op,
            Object sameArgs,
            Function<ShardCalls.Call, byte[][]> argsOf,
            byte[][] moreKeys,
            long since,
            CompletableFuture<Reply> reply) {
        Pending(
                ShardCalls.Call call,
                Op op,
                Object sameArgs,
                Function<ShardCalls.Call, byte[][]> argsOf,
                byte[][] moreKeys,
                long since) {
            this(call, op, sameArgs, argsOf, moreKeys, since, new CompletableFuture<>());
        }
    }

    /** One shard's calls of this layout: those in flight and those waiting. */
    private final class Lane {
        private final int shard;
        private final ArrayDeque<Pending> waiting = new ArrayDeque<>();
        private int inFlight;

        Lane(int shard) {
            this.shard = shard;
        }

        void submit(Pending p) {
            List<List<Pending>> send;
            synchronized (this) {
                waiting.add(p);
                boolean heldTooLong = ticker.getAsLong() - waiting.peekFirst().since() > MAX_HOLD_MICROS * 1000;
                if (inFlight >= IN_FLIGHT && !heldTooLong) {
                    return;
                }
                send = takeWaiting();
            }
            send.forEach(this::send);
        }

        /** Everything waiting, in merged calls; counts them in flight. Under the lane's lock. */
        private List<List<Pending>> takeWaiting() {
            List<List<Pending>> out = groups(waiting);
            waiting.clear();
            inFlight += out.size();
            return out;
        }

        private void send(List<Pending> group) {
            Pending first = group.get(0);
            ShardCalls.Call call = group.size() == 1
                    ? first.call()
                    : merge(group.stream().map(Pending::call).toList(), itemBytes);
            if (group.size() > 1) {
                merged[shard].increment(group.size());
            }
            CompletionStage<List<Object>> sent;
            try {
                sent = port.eval(
                        shard,
                        script,
                        first.op(),
                        ShardCalls.withKeys(call.keys(), first.moreKeys()),
                        first.argsOf().apply(call));
            } catch (RuntimeException e) {
                sent = CompletableFuture.failedFuture(e); // the lane must hear back from every call it counts
            }
            sent.whenComplete((reply, failure) -> {
                List<List<Pending>> next;
                synchronized (this) {
                    inFlight--;
                    next = takeWaiting();
                }
                if (failure != null) {
                    group.forEach(p -> p.reply().completeExceptionally(failure));
                } else {
                    answer(group, reply);
                }
                next.forEach(this::send);
            });
        }

        private void answer(List<Pending> group, List<Object> script) {
            int[] items = new int[group.size()];
            for (int i = 0; i < items.length; i++) {
                items[i] = group.get(i).call().indexes().length;
            }
            List<Reply> replies = replies(script, items);
            for (int i = 0; i < items.length; i++) {
                group.get(i).reply().complete(replies.get(i));
            }
        }
    }

    /**
     * {@code waiting}, in order, as the calls that go out: runs of calls with the same op and {@code sameArgs},
     * each run at most {@link ShardCalls#MAX_ITEMS_PER_CALL} items (a call alone may hold more). A call never
     * joins one that came before a call with other arguments, so that every id's items stay in the order they
     * came.
     */
    static List<List<Pending>> groups(Collection<Pending> waiting) {
        List<List<Pending>> out = new ArrayList<>();
        List<Pending> group = new ArrayList<>();
        int items = 0;
        for (Pending next : waiting) {
            int n = next.call().indexes().length;
            if (!group.isEmpty()
                    && (items + n > ShardCalls.MAX_ITEMS_PER_CALL
                            || next.op() != group.get(0).op()
                            || !next.sameArgs().equals(group.get(0).sameArgs()))) {
                out.add(group);
                group = new ArrayList<>();
                items = 0;
            }
            group.add(next);
            items += n;
        }
        if (!group.isEmpty()) {
            out.add(group);
        }
        return out;
    }

    /**
     * The replies of the calls merged into one, which hold {@code items[i]} items each, in order, given the merged
     * call's {@code script} reply: each call's slice of the answer bytes (none when the reply has fewer), the
     * whole reply, and {@code first} for the first call only.
     */
    static List<Reply> replies(List<Object> script, int[] items) {
        byte[] all = script.isEmpty() || !(script.get(0) instanceof byte[] b) ? new byte[0] : b;
        List<Reply> out = new ArrayList<>(items.length);
        int at = 0;
        for (int i = 0; i < items.length; i++) {
            int n = items[i];
            byte[] mine = all.length == 0 || at + n > all.length
                    ? new byte[0]
                    : java.util.Arrays.copyOfRange(all, at, at + n);
            out.add(new Reply(mine, script, i == 0));
            at += n;
        }
        return out;
    }

    /**
     * The calls (of one shard) as one: their buckets once each, in order of first use, with their keys; their
     * items in order, each item's bucket index (its first two bytes, 1-based) renumbered into the merged buckets.
     */
    static ShardCalls.Call merge(List<ShardCalls.Call> calls, int itemBytes) {
        List<byte[]> keys = new ArrayList<>();
        List<Long> buckets = new ArrayList<>();
        java.util.Map<Long, Integer> index = new java.util.HashMap<>();
        int total = 0;
        for (ShardCalls.Call c : calls) {
            total += c.indexes().length;
        }
        byte[] items = new byte[total * itemBytes];
        int[] indexes = new int[total];
        int at = 0;
        int n = 0;
        for (ShardCalls.Call c : calls) {
            int[] renumbered = new int[c.buckets().length + 1];
            for (int k = 0; k < c.buckets().length; k++) {
                long bucket = c.buckets()[k];
                Integer known = index.get(bucket);
                if (known == null) {
                    keys.add(c.keys()[k]);
                    buckets.add(bucket);
                    known = buckets.size();
                    index.put(bucket, known);
                }
                renumbered[k + 1] = known;
            }
            byte[] src = c.items();
            for (int off = 0; off < src.length; off += itemBytes) {
                System.arraycopy(src, off, items, at, itemBytes);
                int k = renumbered[((src[off] & 0xff) << 8) | (src[off + 1] & 0xff)];
                items[at] = (byte) (k >>> 8);
                items[at + 1] = (byte) k;
                at += itemBytes;
            }
            for (int i : c.indexes()) {
                indexes[n++] = i;
            }
        }
        long[] b = new long[buckets.size()];
        for (int i = 0; i < b.length; i++) {
            b[i] = buckets.get(i);
        }
        return new ShardCalls.Call(calls.get(0).shard(), keys.toArray(byte[][]::new), b, items, indexes);
    }
}
