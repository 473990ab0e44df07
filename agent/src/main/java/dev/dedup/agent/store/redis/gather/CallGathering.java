package dev.dedup.agent.store.redis.gather;

import dev.dedup.agent.metrics.MetricNames;
import dev.dedup.agent.store.LongIntTable;
import dev.dedup.agent.store.redis.access.RedisPort;
import dev.dedup.agent.store.redis.access.RedisPort.Script;
import dev.dedup.agent.store.redis.access.ShardCounters;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.LongSupplier;

/**
 * Gathers the script calls that concurrent batches make on one shard into fewer, larger calls, so that what a
 * call costs a shard (the command, the script's start, a bucket read once for all its items) is paid once for
 * all of them.
 *
 * <p>A bounded gather: a call goes out at once while fewer than {@value #IN_FLIGHT} gathered calls of this
 * layout are in flight on its shard, so a request is never held while the shard is idle. Otherwise it waits
 * for the next answer from that shard, and everything that waited then goes out merged (calls that share
 * their arguments besides the items, at most {@link CallPlan#MAX_ITEMS_PER_CALL} items a call), or with the
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
    private final CallForm form;
    private final LongSupplier ticker;
    private final Lane[] lanes;
    private final Counter[] merged;

    /**
     * {@code form}: where the script's arguments hold what the items make; {@code ticker}: the store's monotonic
     * clock, in nanoseconds ({@link dev.dedup.agent.store.redis.access.Housekeeping#ticker}), which says how long a
     * call has waited.
     */
    public CallGathering(RedisPort port, Script script, CallForm form, MeterRegistry registry, LongSupplier ticker) {
        this.ticker = ticker;
        this.port = port;
        this.script = script;
        this.form = form;
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

    /** Sends {@code call}, alone or merged with others that {@linkplain ScriptCall#joins join} it. */
    public CompletionStage<Reply> submit(ScriptCall call) {
        Pending p = new Pending(call, ticker.getAsLong(), new CompletableFuture<>());
        lanes[call.call().shard()].submit(p);
        return p.reply;
    }

    /** A call submitted, waiting or in flight, and the reply its batch waits on. */
    record Pending(ScriptCall call, long since, CompletableFuture<Reply> reply) {

        int items() {
            return call.call().indexes().length;
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
            List<List<Pending>> out = groups(waiting, form);
            waiting.clear();
            inFlight += out.size();
            return out;
        }

        private void send(List<Pending> group) {
            ScriptCall call = group.size() == 1
                    ? group.get(0).call()
                    : merge(group.stream().map(Pending::call).toList(), form);
            if (group.size() > 1) {
                merged[shard].increment(group.size());
            }
            CompletionStage<List<Object>> sent;
            try {
                sent = port.eval(shard, script, call.op(), call.keys(), call.args());
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
                items[i] = group.get(i).items();
            }
            List<Reply> replies = replies(script, items);
            for (int i = 0; i < items.length; i++) {
                group.get(i).reply().complete(replies.get(i));
            }
        }
    }

    /**
     * {@code waiting}, in order, as the calls that go out: runs of calls that {@linkplain ScriptCall#joins join}
     * the run's first, each run at most {@link CallPlan#MAX_ITEMS_PER_CALL} items (a call alone may hold more). A
     * call never joins one that came before a call with other arguments, so that every id's items stay in the
     * order they came.
     */
    static List<List<Pending>> groups(Collection<Pending> waiting, CallForm form) {
        List<List<Pending>> out = new ArrayList<>();
        List<Pending> group = new ArrayList<>();
        int items = 0;
        for (Pending next : waiting) {
            int n = next.items();
            if (!group.isEmpty()
                    && (items + n > CallPlan.MAX_ITEMS_PER_CALL
                            || !group.get(0).call().joins(next.call(), form))) {
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
     * The calls (of one shard, which {@linkplain ScriptCall#joins join} the first) as one: their buckets once each,
     * in order of first use, with their keys and key arguments; their items in order, each item's key index (its
     * first two bytes, 1-based) renumbered into the merged buckets; the first call's other arguments.
     */
    static ScriptCall merge(List<ScriptCall> calls, CallForm form) {
        int keyArgBytes = 0;
        int total = 0;
        for (ScriptCall c : calls) {
            CallPlan.Call p = c.call();
            total += p.indexes().length;
            if (p.buckets().length > 0) {
                keyArgBytes = p.keyArgs().length / p.buckets().length;
            }
        }
        int itemBytes = form.itemBytes();
        List<byte[]> keys = new ArrayList<>();
        LongIntTable index = new LongIntTable(Math.max(1, total + extraBuckets(calls))); // from 0
        long[] buckets = new long[16];
        byte[] keyArgs = new byte[16 * keyArgBytes];
        byte[] items = new byte[total * itemBytes];
        int[] indexes = new int[total];
        int at = 0;
        int n = 0;
        for (ScriptCall c : calls) {
            CallPlan.Call p = c.call();
            int[] renumbered = new int[p.buckets().length + 1];
            for (int k = 0; k < p.buckets().length; k++) {
                int known = index.putIfAbsent(p.buckets()[k], keys.size());
                if (known == LongIntTable.ABSENT) {
                    known = keys.size();
                    if (known == buckets.length) {
                        buckets = Arrays.copyOf(buckets, known * 2);
                        keyArgs = Arrays.copyOf(keyArgs, known * 2 * keyArgBytes);
                    }
                    buckets[known] = p.buckets()[k];
                    System.arraycopy(p.keyArgs(), k * keyArgBytes, keyArgs, known * keyArgBytes, keyArgBytes);
                    keys.add(p.keys()[k]);
                }
                renumbered[k + 1] = known + 1;
            }
            byte[] src = p.items();
            for (int off = 0; off < src.length; off += itemBytes) {
                System.arraycopy(src, off, items, at, itemBytes);
                int k = renumbered[((src[off] & 0xff) << 8) | (src[off + 1] & 0xff)];
                items[at] = (byte) (k >>> 8);
                items[at + 1] = (byte) k;
                at += itemBytes;
            }
            for (int i : p.indexes()) {
                indexes[n++] = i;
            }
        }
        int m = keys.size();
        ScriptCall first = calls.get(0);
        CallPlan.Call call = new CallPlan.Call(
                first.call().shard(),
                Arrays.copyOf(buckets, m),
                keys.toArray(byte[][]::new),
                Arrays.copyOf(keyArgs, m * keyArgBytes),
                items,
                indexes);
        return new ScriptCall(
                call, first.op(), first.moreKeys(), form.fill(first.args().clone(), call));
    }

    /** Buckets the calls declare beyond one an item: those no item of theirs names. */
    private static int extraBuckets(List<ScriptCall> calls) {
        int extra = 0;
        for (ScriptCall c : calls) {
            extra += Math.max(0, c.call().buckets().length - c.call().indexes().length);
        }
        return extra;
    }
}
