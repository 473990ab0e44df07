package dev.dedup.agent.store.redis.layout;

import dev.dedup.agent.metrics.MetricNames;
import dev.dedup.agent.store.EventClocks;
import dev.dedup.agent.store.redis.access.RedisFailures;
import dev.dedup.agent.store.redis.access.RedisKeys;
import dev.dedup.agent.store.redis.access.RedisPort;
import dev.dedup.agent.store.redis.access.RedisPort.Op;
import dev.dedup.agent.store.redis.access.RedisPort.Script;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.lang.System.Logger.Level;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * Ends the claims of namespaces filed by event time ({@link TimeBuckets}) on each namespace's event clock: every
 * second, for each namespace this agent has filed claims of, it tells the namespace's sweep record its clock, and
 * is handed the seconds whose claims are over (two windows behind the newest clock any agent told it), at most
 * {@value #MOST_KEYS} buckets' worth a round; it deletes their buckets, every slice of each second on the shard
 * that holds it. The record hands each second to one agent, so the work does not grow with the number of agents,
 * and each agent learns the namespace's clock from it (so that its late items are counted). A job that stalls or
 * falls behind keeps its claims: the clock stands still with it. A second handed to an agent that dies before
 * deleting it ends by its buckets' expiry, a backstop ({@link TimeBuckets#ttlSeconds}). A tick finding the last
 * round's calls still out skips.
 */
public final class TimedSweeper implements AutoCloseable {

    private static final System.Logger LOG = System.getLogger(TimedSweeper.class.getName());

    /** Buckets one round deletes at most, over all its seconds: a namespace far behind catches up over rounds. */
    static final int MOST_KEYS = 65_536;

    private static final byte[] HAND_OUT = {'k'};
    private static final byte[] DELETE = {'d'};
    private static final byte[][] NO_ARGS = {DELETE};

    private final TimeBuckets times;
    private final RedisPort port;
    private final RedisKeys keys;
    private final EventClocks clocks;
    private final LongSupplier clockMillis;
    private final ScheduledExecutorService scheduler;
    private final Counter swept;
    private ScheduledFuture<?> ticking;
    private volatile CompletableFuture<Void> running = CompletableFuture.completedFuture(null);
    private volatile boolean warned;

    public TimedSweeper(
            TimeBuckets times,
            RedisPort port,
            RedisKeys keys,
            EventClocks clocks,
            LongSupplier clockMillis,
            ScheduledExecutorService scheduler,
            MeterRegistry registry) {
        this.times = times;
        this.port = port;
        this.keys = keys;
        this.clocks = clocks;
        this.clockMillis = clockMillis;
        this.scheduler = scheduler;
        this.swept = Counter.builder(MetricNames.REDIS_TIMED_SWEPT)
                .description("Buckets of event seconds deleted once their namespace's event clock was two windows"
                        + " past them")
                .register(registry);
    }

    /** Starts ticking on the scheduler: every second, sweeps what is over. */
    public TimedSweeper start() {
        ticking = scheduler.scheduleWithFixedDelay(this::tick, 1, 1, TimeUnit.SECONDS);
        return this;
    }

    /** The sweep record of a namespace filed by event time: {@code <prefix>:timed:<namespace>}. */
    static byte[] record(RedisKeys keys, int shard, String namespace) {
        return keys.named(shard, ":timed:" + namespace);
    }

    private void tick() {
        if (!running.isDone()) {
            return; // the last round's calls are still out: a slow shard is not asked twice
        }
        List<CompletableFuture<Void>> rounds = new ArrayList<>();
        for (Map.Entry<String, TimeBuckets.Filed> e : times.filed().entrySet()) {
            rounds.add(sweep(e.getKey(), e.getValue()).toCompletableFuture());
        }
        running = CompletableFuture.allOf(rounds.toArray(CompletableFuture[]::new))
                .whenComplete((done, failure) -> {
                    if (failure == null) {
                        warned = false;
                    } else if (!warned) {
                        warned = true;
                        LOG.log(
                                Level.WARNING,
                                "ending claims filed by event time failed (will retry each second): "
                                        + RedisFailures.rootMessage(failure));
                    }
                });
    }

    /** One namespace's round: seconds handed out by its record, then their buckets deleted. */
    CompletionStage<Void> sweep(String namespace, TimeBuckets.Filed filed) {
        long clock = clocks.clock(namespace);
        if (clock == dev.dedup.codec.Batch.NO_EVENT_TIME) {
            return CompletableFuture.completedFuture(null);
        }
        int slices = TimeBuckets.slices(filed.policy().eventRate());
        int tag = TimeBuckets.namespaceTag(namespace);
        // the record lives where the namespace's first slice of the far future does: the current list's shard
        int home = filed.where().shard(TimeBuckets.placement(TimeBuckets.bucket(tag, 0, 0, 1)), Long.MAX_VALUE);
        byte[][] args = {
            HAND_OUT,
            RedisKeys.ascii(clock),
            RedisKeys.ascii(2 * TimeBuckets.windowSeconds(filed.policy())),
            RedisKeys.ascii(Math.max(1, MOST_KEYS / slices)),
            RedisKeys.ascii(filed.oldest().get())
        };
        return port.eval(home, Script.TIMED_SWEEP, Op.SWEEP, new byte[][] {record(keys, home, namespace)}, args)
                .thenCompose(reply -> {
                    long shared = number(reply, 0);
                    clocks.advance(namespace, shared, clockMillis.getAsLong());
                    return delete(tag, slices, filed.where(), number(reply, 1), number(reply, 2));
                });
    }

    /** Deletes the buckets of seconds {@code from} to {@code to - 1}: every slice, on its shard. */
    private CompletionStage<Void> delete(int tag, int slices, TimeBuckets.Placement where, long from, long to) {
        if (to <= from) {
            return CompletableFuture.completedFuture(null);
        }
        List<List<byte[]>> byShard = new ArrayList<>();
        for (int s = 0; s < port.shards(); s++) {
            byShard.add(new ArrayList<>());
        }
        for (long second = from; second < to; second++) {
            for (int slice = 0; slice < slices; slice++) {
                long bucket = TimeBuckets.bucket(tag, second, slice, slices);
                int shard = where.shard(TimeBuckets.placement(bucket), second);
                byShard.get(shard).add(times.key(shard, bucket));
            }
        }
        List<CompletableFuture<Void>> calls = new ArrayList<>();
        for (int s = 0; s < byShard.size(); s++) {
            List<byte[]> k = byShard.get(s);
            if (!k.isEmpty()) {
                calls.add(port.eval(s, Script.TIMED_SWEEP, Op.SWEEP, k.toArray(byte[][]::new), NO_ARGS)
                        .thenAccept(reply -> swept.increment(number(reply, 0)))
                        .toCompletableFuture());
            }
        }
        return CompletableFuture.allOf(calls.toArray(CompletableFuture[]::new));
    }

    private static long number(List<Object> reply, int i) {
        if (reply.size() > i && reply.get(i) instanceof Long n) {
            return n;
        }
        if (reply.size() > i && reply.get(i) instanceof byte[] b) {
            return Long.parseLong(new String(b, StandardCharsets.US_ASCII));
        }
        throw new IllegalStateException("timed_sweep.lua answered " + reply);
    }

    @Override
    public void close() {
        if (ticking != null) {
            ticking.cancel(false);
        }
    }
}
