package dev.dedup.agent.store.redis;

import dev.dedup.agent.metrics.MetricNames;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.lang.System.Logger.Level;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.function.LongSupplier;

/**
 * After the cut-over of a declared change of the shard list, moves each fingerprint bucket (its levels) and
 * each stream's ranges whose shard changed ({@link Routing#moves}) from the previous list's shard to the
 * current one's, so that a claim keeps its owner and its end and nothing is looked up twice for a window.
 *
 * <p>A unit is moved by whichever agent needs it first (a batch touching it waits for it) or gets to it in its
 * walk over all of them: read on the source shard ({@code move.lua} 'o'), written on the target with a marker in
 * the same call ('i', which does nothing when the marker is already there, so agents racing for one unit write
 * it once), then deleted on the source ('d'). No agent writes a unit on its source shard after the cut-over
 * (every record there has advanced, and an agent on the old list is refused), so what is read there is all
 * there is; no agent uses it on its target before its marker is set. Each agent remembers which units it has
 * seen arrive, so a unit costs it one check at most. Markers live as long as a bucket's level keys, longer than
 * the previous list is needed.
 */
final class Moves implements AutoCloseable {

    private static final System.Logger LOG = System.getLogger(Moves.class.getName());

    /** Units moved at once by the walk: a bound on what it takes from the shards beside the claims. */
    static final int WALK_CONCURRENCY = 8;

    /**
     * Units moved at once by this agent, walk and batches together: each is up to 4 script calls on two shards,
     * so this keeps the moves well inside a shard's queue ({@code --redis-max-in-flight}) when a batch after
     * the cut-over touches thousands of buckets.
     */
    static final int MOVES_IN_FLIGHT = 32;

    private static final byte[] CHECK = {'k'};
    private static final byte[] OUT = {'o'};
    private static final byte[] IN = {'i'};
    private static final byte[] DROP = {'d'};
    private static final byte[] SCAN = {'s'};
    private static final CompletableFuture<Void> DONE = CompletableFuture.completedFuture(null);

    private final RedisPort port;
    private final Routing routing;
    private final RedisKeys keys;
    private final int buckets;
    private final int maxLevels;
    private final byte[] markerTtl = RedisKeys.ascii(FingerprintBuckets.KEY_TTL_MILLIS);
    private final LongSupplier clockMillis;

    /** Buckets this agent saw arrive on their target: one bit each. */
    private final AtomicLongArray arrived;

    private final Set<String> rangesArrived = ConcurrentHashMap.newKeySet();
    private final Map<String, CompletableFuture<Void>> moving = new ConcurrentHashMap<>();
    private final java.util.Queue<Runnable> queued = new java.util.concurrent.ConcurrentLinkedQueue<>();
    private final java.util.concurrent.atomic.AtomicInteger inFlight = new java.util.concurrent.atomic.AtomicInteger();
    private final Counter movedBuckets;
    private final Counter movedRanges;
    private final Counter movedEntries;
    private final AtomicLong walkedUnits = new AtomicLong();
    private volatile long walkStartedMillis = -1;
    private volatile long walkEndedMillis = -1;
    private volatile long walkStartedNanos;
    private volatile long walkNanos = -1;
    private volatile boolean closed;
    private final long previousNeededUntil;
    private volatile boolean droppableLogged;

    /**
     * @param previousNeededUntil epoch millisecond until which event-time claims may live in the previous list
     *                            (the cut-over plus the longest window of a namespace filed by event time)
     */
    Moves(
            RedisPort port,
            Routing routing,
            RedisKeys keys,
            int buckets,
            int maxLevels,
            LongSupplier clockMillis,
            long previousNeededUntil,
            MeterRegistry registry) {
        this.previousNeededUntil = previousNeededUntil;
        this.port = port;
        this.routing = routing;
        this.keys = keys;
        this.buckets = buckets;
        this.maxLevels = maxLevels;
        this.clockMillis = clockMillis;
        this.arrived = new AtomicLongArray(routing.inTransition() ? (buckets + 63) / 64 : 0);
        this.movedBuckets = Counter.builder(MetricNames.REDIS_MOVED)
                .tag("unit", "bucket")
                .description("Buckets and streams' ranges this agent moved to their shard in a changed shard list")
                .register(registry);
        this.movedRanges = Counter.builder(MetricNames.REDIS_MOVED)
                .tag("unit", "ranges")
                .description("Buckets and streams' ranges this agent moved to their shard in a changed shard list")
                .register(registry);
        this.movedEntries = Counter.builder(MetricNames.REDIS_MOVED_ENTRIES)
                .description("Hash entries (claims) and range keys this agent moved to their shard in a changed"
                        + " shard list")
                .register(registry);
    }

    /** Completes once every bucket of {@code touched} that the change moves has arrived on its shard. */
    CompletionStage<Void> buckets(long[] touched, int count) {
        if (!routing.inTransition() || !routing.cutOver()) {
            return DONE;
        }
        List<CompletableFuture<Void>> pending = null;
        for (int i = 0; i < count; i++) {
            int bucket = (int) touched[i];
            if (routing.moves(bucket) && !hasArrived(bucket)) {
                if (pending == null) {
                    pending = new ArrayList<>();
                }
                pending.add(bucket(bucket));
            }
        }
        return pending == null ? DONE : CompletableFuture.allOf(pending.toArray(CompletableFuture[]::new));
    }

    /** Completes once a stream's ranges, if the change moves them, have arrived on their shard. */
    CompletionStage<Void> ranges(long hash, byte[] rangeKey) {
        if (!routing.inTransition() || !routing.cutOver() || !routing.moves(hash)) {
            return DONE;
        }
        String name = new String(rangeKey, StandardCharsets.ISO_8859_1);
        if (rangesArrived.contains(name)) {
            return DONE;
        }
        return once(
                "r" + name,
                () -> move(
                                routing.source(hash),
                                routing.target(hash),
                                keys.movedMarker(rangeKey, RedisKeys.RANGE_TAG_BYTES),
                                new byte[][] {rangeKey})
                        .thenAccept(moved -> {
                            rangesArrived.add(name);
                            if (moved >= 0) {
                                movedRanges.increment();
                            }
                        }));
    }

    private boolean hasArrived(int bucket) {
        return (arrived.get(bucket >>> 6) & (1L << (bucket & 63))) != 0;
    }

    private void markArrived(int bucket) {
        int word = bucket >>> 6;
        long bit = 1L << (bucket & 63);
        long w;
        do {
            w = arrived.get(word);
        } while ((w & bit) == 0 && !arrived.compareAndSet(word, w, w | bit));
    }

    private CompletableFuture<Void> bucket(int bucket) {
        return once("b" + bucket, () -> {
            // Standalone shards only (a Redis Cluster has no shard list to change): the key is the same on both.
            byte[] base = FingerprintBuckets.bucketKey(keys, routing.source(bucket), bucket);
            // Its first key (its one hash, or the mark of its levels: layout v2), then every level a mark names.
            byte[][] levels = new byte[maxLevels + 1][];
            levels[0] = base;
            for (int l = 0; l < maxLevels; l++) {
                levels[l + 1] = RedisKeys.levelKey(base, l);
            }
            return move(routing.source(bucket), routing.target(bucket), keys.movedMarker(base, base.length), levels)
                    .thenAccept(moved -> {
                        markArrived(bucket);
                        if (moved >= 0) {
                            movedBuckets.increment();
                        }
                    });
        });
    }

    /** One move of a unit at a time in this agent: callers of the same unit share it. */
    private CompletableFuture<Void> once(String unit, java.util.function.Supplier<CompletionStage<Void>> move) {
        CompletableFuture<Void> mine = new CompletableFuture<>();
        CompletableFuture<Void> running = moving.putIfAbsent(unit, mine);
        if (running != null) {
            return running;
        }
        queued.add(() -> move.get().whenComplete((ok, failure) -> {
            moving.remove(unit, mine);
            inFlight.decrementAndGet();
            if (failure != null) {
                mine.completeExceptionally(failure);
            } else {
                mine.complete(null);
            }
            drain();
        }));
        drain();
        return mine;
    }

    /** Starts queued moves while fewer than {@value #MOVES_IN_FLIGHT} run. */
    private void drain() {
        while (true) {
            int now = inFlight.get();
            if (now >= MOVES_IN_FLIGHT || queued.isEmpty()) {
                return;
            }
            if (!inFlight.compareAndSet(now, now + 1)) {
                continue;
            }
            Runnable next = queued.poll();
            if (next == null) {
                inFlight.decrementAndGet();
                return;
            }
            next.run();
        }
    }

    /**
     * Moves one unit's {@code unitKeys} from shard {@code from} to {@code to}; completes with the entries moved,
     * or -1 when the unit had arrived already.
     */
    private CompletionStage<Long> move(int from, int to, byte[] marker, byte[][] unitKeys) {
        byte[][] withMarker = new byte[unitKeys.length + 1][];
        withMarker[0] = marker;
        System.arraycopy(unitKeys, 0, withMarker, 1, unitKeys.length);
        return port.eval(to, RedisScript.MOVE, Mode.MOVE, new byte[][] {marker}, new byte[][] {CHECK})
                .thenCompose(check -> {
                    if ((Long) check.get(0) == 1L) {
                        return CompletableFuture.completedFuture(-1L);
                    }
                    return port.eval(from, RedisScript.MOVE, Mode.MOVE, withMarker, new byte[][] {OUT})
                            .thenCompose(out -> {
                                List<byte[]> args = new ArrayList<>();
                                args.add(IN);
                                args.add(markerTtl);
                                long entries = 0;
                                for (Object o : out) {
                                    List<?> key = (List<?>) o;
                                    List<?> contents = (List<?>) key.get(2);
                                    args.add((byte[]) key.get(0));
                                    args.add(RedisKeys.ascii((Long) key.get(1)));
                                    args.add(RedisKeys.ascii(contents.size()));
                                    for (Object c : contents) {
                                        args.add((byte[]) c);
                                    }
                                    // a hash's field-value pairs, a string's value: claims and streams moved
                                    entries += (contents.size() + 1) / 2;
                                }
                                long moved = entries;
                                return port.eval(
                                                to,
                                                RedisScript.MOVE,
                                                Mode.MOVE_IN,
                                                withMarker,
                                                args.toArray(byte[][]::new))
                                        .thenCompose(in -> port.eval(
                                                from, RedisScript.MOVE, Mode.MOVE, withMarker, new byte[][] {DROP}))
                                        .thenApply(dropped -> {
                                            movedEntries.increment(moved);
                                            return moved;
                                        });
                            });
                });
    }

    /**
     * Walks every unit the change moves, {@value #WALK_CONCURRENCY} at a time, so that the previous list can be
     * dropped: every bucket, then the streams' ranges found by scanning the previous list's shards. Runs once,
     * after the cut-over; a unit that fails is tried again by the next walk step that needs it.
     */
    void walk() {
        if (!routing.inTransition() || walkStartedMillis >= 0) {
            return;
        }
        walkStartedMillis = clockMillis.getAsLong();
        walkStartedNanos = System.nanoTime();
        Thread t = new Thread(this::walkAll, "dedup-redis-moves");
        t.setDaemon(true);
        t.start();
    }

    private void walkAll() {
        Semaphore permits = new Semaphore(WALK_CONCURRENCY);
        try {
            for (int b = 0; b < buckets && !closed; b++) {
                if (!routing.moves(b)) {
                    continue;
                }
                int bucket = b;
                permits.acquire();
                retrying(() -> bucket(bucket)).whenComplete((ok, failure) -> {
                    walkedUnits.incrementAndGet();
                    permits.release();
                });
            }
            for (int source : routing.previous()) {
                byte[] cursor = {'0'};
                do {
                    byte[] at = cursor;
                    List<Object> step = retrying(() -> scan(source, at)).join();
                    for (Object k : (List<?>) step.get(1)) {
                        byte[] key = (byte[]) k;
                        if (!keys.isRangeKey(key)) {
                            continue;
                        }
                        long hash = keys.rangeHashOf(key);
                        if (routing.moves(hash) && routing.source(hash) == source) {
                            permits.acquire();
                            retrying(() -> ranges(hash, key).toCompletableFuture())
                                    .whenComplete((ok, failure) -> {
                                        walkedUnits.incrementAndGet();
                                        permits.release();
                                    });
                        }
                    }
                    cursor = (byte[]) step.get(0);
                } while (!closed && !(cursor.length == 1 && cursor[0] == '0'));
            }
            permits.acquire(WALK_CONCURRENCY);
            permits.release(WALK_CONCURRENCY);
            walkEndedMillis = clockMillis.getAsLong();
            walkNanos = System.nanoTime() - walkStartedNanos;
            LOG.log(
                    Level.INFO,
                    "redis: every bucket and stream the shard-list change moves is on its new shard ("
                            + walkedUnits.get() + " checked, " + (long) movedBuckets.count() + " buckets and "
                            + (long) movedRanges.count() + " streams moved by this agent, "
                            + walkNanos / 1_000_000 + " ms)");
            while (!closed && !previousDroppable()) {
                Thread.sleep(10_000);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (RuntimeException e) {
            if (!closed) {
                LOG.log(Level.ERROR, "redis: moving buckets to the changed shard list stopped: " + e, e);
            }
        }
    }

    private CompletableFuture<List<Object>> scan(int shard, byte[] cursor) {
        byte[] pattern = keys.rangeKeyPattern();
        return port.eval(shard, RedisScript.MOVE, Mode.MOVE, new byte[0][], new byte[][] {SCAN, cursor, pattern})
                .toCompletableFuture();
    }

    /** {@code step}, tried again every second while it fails (a shard down) until this closes. */
    private <T> CompletableFuture<T> retrying(java.util.function.Supplier<CompletableFuture<T>> step) {
        CompletableFuture<T> result = new CompletableFuture<>();
        attempt(step, result);
        return result;
    }

    private <T> void attempt(java.util.function.Supplier<CompletableFuture<T>> step, CompletableFuture<T> result) {
        step.get().whenComplete((value, failure) -> {
            if (failure == null) {
                result.complete(value);
            } else if (closed) {
                result.completeExceptionally(failure);
            } else {
                CompletableFuture.delayedExecutor(1, java.util.concurrent.TimeUnit.SECONDS)
                        .execute(() -> attempt(step, result));
            }
        });
    }

    /** Whether every unit the change moves has arrived (so the previous list is no longer needed for them). */
    boolean walked() {
        return walkEndedMillis >= 0;
    }

    /**
     * Whether the previous list may be dropped from the configuration: every unit it had to give has arrived
     * and no event-time claim of a second before the cut-over can still be live. Logged once when it becomes so.
     */
    boolean previousDroppable() {
        boolean droppable = walked() && clockMillis.getAsLong() >= previousNeededUntil;
        if (droppable && !droppableLogged) {
            droppableLogged = true;
            LOG.log(
                    Level.INFO,
                    "redis: the previous shard list is no longer needed: restart the agents without"
                            + " --redis-previous and --redis-cutover (docs/redis.md#changing-the-shard-list)");
        }
        return droppable;
    }

    /** The transition's part of {@code /v1/stats}. */
    Map<String, Object> stats() {
        Map<String, Object> s = new LinkedHashMap<>();
        s.put("walk_started_ms", walkStartedMillis);
        s.put("walk_ended_ms", walkEndedMillis);
        s.put("walk_took_ms", walkNanos < 0 ? -1 : walkNanos / 1_000_000);
        s.put("units_checked", walkedUnits.get());
        s.put("buckets_moved_here", (long) movedBuckets.count());
        s.put("ranges_moved_here", (long) movedRanges.count());
        s.put("entries_moved_here", (long) movedEntries.count());
        return s;
    }

    @Override
    public void close() {
        closed = true;
    }
}
