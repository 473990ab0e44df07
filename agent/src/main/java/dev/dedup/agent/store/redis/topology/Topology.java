package dev.dedup.agent.store.redis.topology;

import dev.dedup.agent.metrics.MetricNames;
import dev.dedup.agent.store.FailureKind;
import dev.dedup.agent.store.StoreUnavailableException;
import dev.dedup.agent.store.redis.access.Housekeeping;
import dev.dedup.agent.store.redis.access.RedisPort;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.lang.System.Logger.Level;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.function.LongSupplier;

/**
 * The shards' own record of the topology they belong to, so that nothing is forgotten by accident.
 *
 * <p>Every shard holds a record {@code <prefix>:topology} = {@code dedup-topology v1 deployment=<id>
 * epoch=<n> shard=<i> of=<k>} (on a Redis Cluster every group does, in its own slot: {@code shard} is the
 * group): which deployment it belongs to and where it stands in the shard list of
 * topology epoch {@code n} ({@code shard=retired} for a shard a change took out of the list; {@link
 * TopologyRecord}). At start ({@link TopologyStart}) the agent agrees with the records, stamps them, joins a
 * declared change or refuses to start, as {@link StartPlan} decides.
 *
 * <p>Then every claim, release, range, resize and sweep script checks the record first ({@code guard.lua}), in
 * the same call ({@link GuardedPort}): a shard that restarted empty, was flushed or was replaced answers nothing but
 * an error, which the agent turns into 503 ({@code kind=topology}) for the ids on it; never {@code new} for an id it
 * claimed before. A watch reads the records every {@value #WATCH_SECONDS} seconds to report such a shard in
 * {@code /health/ready}, {@code /v1/stats}, the log and {@code dedup_redis_shard_topology_ok}, and to
 * cut over when the time comes; what it makes of a record is {@link RecordWatch}'s decision, when and whether a
 * cut-over is made {@link CutOver}'s.
 */
public final class Topology implements AutoCloseable {

    private static final System.Logger LOG = System.getLogger(Topology.class.getName());
    static final int WATCH_SECONDS = 2;

    private final RedisPort port;
    private final ShardLists lists;
    private final LongSupplier clockMillis;
    /** Nanoseconds: how long ago a cut-over failed. */
    private final LongSupplier ticker;
    /** Per shard, the key of its record. */
    private final byte[][] key;
    /** Per shard, the record expected before the cut-over (the same as after it without a change). */
    private final byte[][] before;
    /** Per shard, the record expected after the cut-over. */
    private final byte[][] after;
    /** What each shard held when last read. */
    private final AtomicReferenceArray<String> held;
    /** Whether claims without event time are made in the current list (always so without a change). */
    private volatile boolean cutOver;

    private final AtomicReference<CompletableFuture<Void>> cutting = new AtomicReference<>();
    private volatile long lastFailure;
    private final ScheduledFuture<?> watching;

    Topology(
            RedisPort port,
            ShardLists lists,
            Housekeeping housekeeping,
            byte[][] key,
            StartPlan plan,
            MeterRegistry registry) {
        this.port = port;
        this.lists = lists;
        this.cutOver = plan.cutOver();
        this.clockMillis = housekeeping.clockMillis();
        this.ticker = housekeeping.ticker();
        this.key = key;
        this.before = new byte[key.length][];
        this.after = new byte[key.length][];
        this.held = new AtomicReferenceArray<>(key.length);
        for (int s = 0; s < key.length; s++) {
            before[s] = plan.before(s);
            after[s] = plan.after(s);
            held.set(s, TopologyRecord.text(expected(s)));
            int shard = s;
            Gauge.builder(MetricNames.REDIS_SHARD_TOPOLOGY_OK, () -> ok(shard) ? 1 : 0)
                    .tag(MetricNames.TAG_SHARD, String.valueOf(s))
                    .description("1 while the shard holds the topology record the agent expects; 0 when it lost"
                            + " its data or belongs elsewhere (its ids are answered 503)")
                    .register(registry);
        }
        this.watching = housekeeping
                .scheduler()
                .scheduleWithFixedDelay(this::watch, WATCH_SECONDS, WATCH_SECONDS, TimeUnit.SECONDS);
    }

    /**
     * Whether claims without event time are made in the current list: always so without a declared change; during
     * one, once every shard's record is advanced at the cut-over.
     */
    public boolean cutOver() {
        return cutOver;
    }

    private byte[] expected(int shard) {
        return cutOver ? after[shard] : before[shard];
    }

    /**
     * The port whose guarded calls carry the record each shard is expected to hold ({@link GuardedPort}). Only a
     * declared change of the shard list has a cut-over, after which shards hold other records; without one every
     * shard's record stays the one it started with, and the port is given those.
     */
    public RedisPort guarded() {
        return lists.changing()
                ? GuardedPort.following(port, key, this::expected, this::refused)
                : GuardedPort.fixed(port, key, before, this::refused);
    }

    /**
     * A guarded call refused by {@code shard}: during a change, before this agent cut over, another agent may have
     * (the shard holds the record after the cut-over), which this one then follows.
     */
    private void refused(int shard) {
        if (lists.changing() && !cutOver) {
            RecordCall.read(port, shard, key[shard]).thenAccept(now -> {
                if (TopologyRecord.text(after[shard]).equals(now)) {
                    advance();
                }
            });
        }
    }

    /**
     * Completes when claims made at {@code nowMillis} may be routed: at once, or, when the cut-over is due and
     * not yet made, once it is. A cut-over that cannot finish (a shard down) leaves claims routed as before: the
     * shards it reached refuse them (503) and the others still decide, rather than every claim waiting on one shard.
     */
    public CompletionStage<Void> routable(long nowMillis) {
        CompletableFuture<Void> last = cutting.get();
        if (!CutOver.due(cutOver, nowMillis, lists.cutoverSecond())
                || !CutOver.tryNow(last != null && last.isCompletedExceptionally(), lastFailure, ticker.getAsLong())) {
            return CompletableFuture.completedFuture(null);
        }
        return advance().exceptionally(failure -> null);
    }

    /**
     * Advances every shard's record from the previous list's epoch to the current one's, then makes claims in
     * the current list. Any agent may do it, several at once; a failed attempt (a shard down) is tried again
     * by the next claim or watch.
     */
    CompletableFuture<Void> advance() {
        CompletableFuture<Void> running = cutting.get();
        if (cutOver) {
            return CompletableFuture.completedFuture(null);
        }
        if (running != null && !running.isCompletedExceptionally()) {
            return running;
        }
        CompletableFuture<Void> mine = new CompletableFuture<>();
        if (!cutting.compareAndSet(running, mine)) {
            return cutting.get();
        }
        List<CompletableFuture<Void>> advanced = new ArrayList<>();
        for (int s = 0; s < key.length; s++) {
            int shard = s;
            advanced.add(RecordCall.advance(port, s, key[s], after[s], before[s])
                    .<Void>thenApply(now -> {
                        held.set(shard, now);
                        String why = CutOver.notAdvanced(port.name(shard), now, before[shard], after[shard]);
                        if (why != null) {
                            throw new StoreUnavailableException(FailureKind.TOPOLOGY, why, null);
                        }
                        return null;
                    })
                    .toCompletableFuture());
        }
        CompletableFuture.allOf(advanced.toArray(CompletableFuture[]::new)).whenComplete((ok, failure) -> {
            if (failure != null) {
                LOG.log(Level.WARNING, "redis: the cut-over is not done yet (tried again shortly): " + failure);
                lastFailure = ticker.getAsLong();
                mine.completeExceptionally(failure);
                return;
            }
            cutOver = true;
            LOG.log(Level.INFO, CutOver.made(clockMillis.getAsLong(), lists.cutoverSecond()));
            mine.complete(null);
        });
        return mine;
    }

    boolean ok(int shard) {
        return TopologyRecord.text(expected(shard)).equals(held.get(shard));
    }

    /** Why the shards are not all in the topology, or null when they are. */
    public String problem() {
        List<String> wrong = new ArrayList<>();
        for (int s = 0; s < key.length; s++) {
            if (!ok(s)) {
                wrong.add(RecordWatch.wrong(port.name(s), held.get(s)));
            }
        }
        return RecordWatch.problem(wrong);
    }

    /** The shard's part of {@code /v1/stats}. */
    public Map<String, Object> stats(int shard) {
        Map<String, Object> s = new LinkedHashMap<>();
        s.put("expected", TopologyRecord.text(expected(shard)));
        s.put("held", held.get(shard));
        s.put("ok", ok(shard));
        return s;
    }

    /**
     * Reads every shard's record without blocking and acts on what {@link RecordWatch} makes of it; an unreachable
     * shard is the connection's business, not the topology's.
     */
    private void watch() {
        if (CutOver.due(cutOver, clockMillis.getAsLong(), lists.cutoverSecond())) {
            advance();
        }
        for (int s = 0; s < key.length; s++) {
            int shard = s;
            RecordCall.read(port, s, key[s]).thenAccept(now -> seen(shard, now));
        }
    }

    private void seen(int s, String now) {
        String was = held.getAndSet(s, now);
        RecordWatch.Seen seen =
                RecordWatch.decide(was, now, TopologyRecord.text(expected(s)), TopologyRecord.text(after[s]), cutOver);
        switch (seen) {
            case UNCHANGED -> {}
            case ADVANCED -> advance(); // another agent reached the cut-over first
            case BACK -> LOG.log(Level.INFO, RecordWatch.message(seen, port.name(s), now));
            case MOVED_ON, LOST -> LOG.log(Level.ERROR, RecordWatch.message(seen, port.name(s), now));
        }
    }

    @Override
    public void close() {
        watching.cancel(false);
    }
}
