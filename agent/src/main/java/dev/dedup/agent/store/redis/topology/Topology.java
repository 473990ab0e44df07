package dev.dedup.agent.store.redis.topology;

import dev.dedup.agent.metrics.MetricNames;
import dev.dedup.agent.store.FailureKind;
import dev.dedup.agent.store.IncompatibleDeploymentException;
import dev.dedup.agent.store.StoreUnavailableException;
import dev.dedup.agent.store.redis.access.EvictionPolicy;
import dev.dedup.agent.store.redis.access.MemoryInfo;
import dev.dedup.agent.store.redis.access.Mode;
import dev.dedup.agent.store.redis.access.RedisKeys;
import dev.dedup.agent.store.redis.access.RedisPort;
import dev.dedup.agent.store.redis.access.RedisScript;
import dev.dedup.agent.store.redis.access.Retry;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.lang.System.Logger.Level;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.function.Consumer;
import java.util.function.LongSupplier;

/**
 * The shards' own record of the topology they belong to, so that nothing is forgotten by accident.
 *
 * <p>Every shard holds a record {@code <prefix>:topology} = {@code dedup-topology v1 deployment=<id>
 * epoch=<n> shard=<i> of=<k>} (on a Redis Cluster every group does, in its own slot: {@code shard} is the
 * group): which deployment it belongs to and where it stands in the shard list of
 * topology epoch {@code n} ({@code shard=retired} for a shard a change took out of the list; {@link
 * TopologyRecord}). At start the agent reads every shard's record and, as {@link StartPlan} decides:
 *
 * <ul>
 *   <li>when no shard has one (a new deployment, or shards written by a version without records),
 *       stamps them in the order of {@code --redis};
 *   <li>when every shard's record agrees with the order of {@code --redis}, starts;
 *   <li>during a declared change ({@code --redis-previous}, {@code --redis-cutover}): the previous list's
 *       shards must hold epoch {@code n} in its order and the new shards are stamped {@code n+1} in the
 *       current order; at the cut-over the first agent to reach it advances every record to epoch
 *       {@code n+1} (the others follow when they reach it, or when a shard tells them), and only then
 *       makes claims in the current list. An agent still on the previous list is refused by every shard
 *       from then on (503): it cannot decide alone where a claim lives;
 *   <li>otherwise refuses to start (exit 2) with one line saying what differs: a shard added or removed,
 *       the order changed, a shard of another deployment, or a shard without a record among shards with
 *       one (it lost its data, or was added without declaring the change). {@code
 *       --redis-adopt-empty-shards} stamps such shards instead, accepting that their claims are gone.
 * </ul>
 *
 * <p>Then every claim, release, range, resize and sweep script checks the record first ({@code guard.lua}), in
 * the same call: a shard that restarted empty, was flushed or was replaced answers nothing but an error, which
 * the agent turns into 503 ({@code kind=topology}) for the ids on it; never {@code new} for an id it claimed
 * before. A watch reads the records every {@value #WATCH_SECONDS} seconds to report such a shard in
 * {@code /health/ready}, {@code /v1/stats}, the log and {@code dedup_redis_shard_topology_ok}, and to
 * cut over when the time comes.
 */
public final class Topology implements AutoCloseable {

    private static final System.Logger LOG = System.getLogger(Topology.class.getName());
    static final int WATCH_SECONDS = 2;

    private final RedisPort port;
    private final ShardLists lists;
    private final LongSupplier clockMillis;
    /** Whether claims without event time are made in the current list (always so without a change). */
    private volatile boolean cutOver;
    /** Per shard, the key of its record. */
    private final byte[][] key;
    /** Per shard, the record expected before the cut-over (the same as after it without a transition). */
    private final byte[][] before;
    /** Per shard, the record expected after the cut-over. */
    private final byte[][] after;
    /** What each shard held when last read. */
    private final AtomicReferenceArray<String> held;

    private final java.util.concurrent.ScheduledFuture<?> watching;
    private final java.util.concurrent.atomic.AtomicReference<CompletableFuture<Void>> cutting =
            new java.util.concurrent.atomic.AtomicReference<>();

    private Topology(
            RedisPort port,
            ShardLists lists,
            boolean cutOver,
            LongSupplier clockMillis,
            byte[][] key,
            byte[][] before,
            byte[][] after,
            MeterRegistry registry,
            ScheduledExecutorService scheduler) {
        this.port = port;
        this.lists = lists;
        this.cutOver = cutOver;
        this.clockMillis = clockMillis;
        this.key = key;
        this.before = before;
        this.after = after;
        this.held = new AtomicReferenceArray<>(before.length);
        for (int s = 0; s < before.length; s++) {
            held.set(s, text(expected(s)));
            int shard = s;
            Gauge.builder(MetricNames.REDIS_SHARD_TOPOLOGY_OK, () -> ok(shard) ? 1 : 0)
                    .tag(MetricNames.TAG_SHARD, String.valueOf(s))
                    .description("1 while the shard holds the topology record the agent expects; 0 when it lost"
                            + " its data or belongs elsewhere (its ids are answered 503)")
                    .register(registry);
        }
        this.watching = scheduler.scheduleWithFixedDelay(this::watch, WATCH_SECONDS, WATCH_SECONDS, TimeUnit.SECONDS);
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
     * Reads every shard's record and agrees, stamps or refuses as the class says.
     *
     * @throws IncompatibleDeploymentException naming what differs and how to declare a change (the agent exits 2)
     */
    public static Topology agreeOrRefuse(
            RedisPort port,
            RedisKeys keys,
            ShardLists lists,
            boolean adoptEmpty,
            LongSupplier clockMillis,
            MeterRegistry registry,
            ScheduledExecutorService scheduler) {
        for (int attempt = 1; ; attempt++) {
            try {
                return agreeOrRefuseOnce(port, keys, lists, adoptEmpty, clockMillis, registry, scheduler);
            } catch (StartRace race) {
                if (!START_RACE.another(attempt)) {
                    throw race.refusal;
                }
                LOG.log(
                        Level.INFO,
                        "redis: the shards' records are incomplete or changed as this agent stamped them (another agent"
                                + " starting at the same moment?); reading them again");
                try {
                    Thread.sleep(START_RACE.pauseMillis(attempt));
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw race.refusal;
                }
            }
        }
    }

    /** Reads ten times over about two seconds before refusing what another agent may be stamping. */
    private static final Retry START_RACE = Retry.every(10, 200);

    private static Topology agreeOrRefuseOnce(
            RedisPort port,
            RedisKeys keys,
            ShardLists lists,
            boolean adoptEmpty,
            LongSupplier clockMillis,
            MeterRegistry registry,
            ScheduledExecutorService scheduler) {
        int k = port.shards();
        byte[][] key = new byte[k][];
        List<StartPlan.Read> read = new ArrayList<>(k);
        for (int s = 0; s < k; s++) {
            key[s] = keys.topology(s);
            read.add(new StartPlan.Read(port.name(s), text(key[s]), read(port, s, key[s])));
        }
        StartPlan plan = StartPlan.decide(
                read, lists, adoptEmpty, () -> UUID.randomUUID().toString());
        if (plan.newDeployment()) {
            LOG.log(
                    Level.INFO,
                    "redis: no shard holds a topology record; stamping " + k + " shards as deployment "
                            + plan.deployment() + " in the order of --redis"
                            + (lists.changing() ? "-previous (epoch 1) and --redis (epoch 2)" : ""));
        } else if (!plan.adopted().isEmpty()) {
            LOG.log(
                    Level.WARNING,
                    "redis: adopting " + plan.adopted() + " (no topology record): claims they held are"
                            + " forgotten; ids on them are answered new again");
        }
        byte[][] before = new byte[k][];
        byte[][] after = new byte[k][];
        for (int s = 0; s < k; s++) {
            before[s] = plan.before(s);
            after[s] = plan.after(s);
            byte[] stamp = plan.stamp(s);
            if (stamp != null) {
                String now = stamp(port, s, key[s], stamp);
                if (!now.equals(text(stamp))) {
                    throw new StartRace(new IncompatibleDeploymentException("redis: shard " + port.name(s)
                            + " was stamped \"" + now
                            + "\" by another agent starting with another shard list at the same time"));
                }
            }
        }
        Topology topology =
                new Topology(port, lists, plan.cutOver(), clockMillis, key, before, after, registry, scheduler);
        if (lists.changing() && !topology.cutOver) {
            LOG.log(
                    Level.INFO,
                    "redis: changing the shard list: claims stay in --redis-previous until the cut-over at "
                            + java.time.Instant.ofEpochSecond(lists.cutoverSecond()) + ", then move to --redis");
            if (plan.advancing()) {
                topology.advance(); // another agent began: finish what it started
            }
        }
        return topology;
    }

    /**
     * {@code port}, whose calls of a {@link RedisScript#guarded() guarded} script (one that starts with {@code
     * guard.lua}) carry the topology record's key last among the keys, {@code KEYS[#KEYS]}, and the record the
     * shard is expected to hold last among the arguments, {@code ARGV[#ARGV]}: the guard fails the call with
     * {@code DEDUPTOPOLOGY}, having read and written nothing else, when the shard holds another record or none.
     */
    public RedisPort guarded() {
        return new RedisPort() {
            @Override
            public int shards() {
                return port.shards();
            }

            @Override
            public String name(int shard) {
                return port.name(shard);
            }

            @Override
            public CompletionStage<List<Object>> eval(
                    int shard, RedisScript script, Mode mode, byte[][] keys, byte[][] args) {
                if (!script.guarded()) {
                    return port.eval(shard, script, mode, keys, args);
                }
                byte[][] k = Arrays.copyOf(keys, keys.length + 1);
                k[keys.length] = key[shard];
                byte[][] a = Arrays.copyOf(args, args.length + 1);
                a[args.length] = expected(shard);
                return port.eval(shard, script, mode, k, a).whenComplete((reply, failure) -> {
                    if (failure != null && lists.changing() && !cutOver && mentions(failure, text(after[shard]))) {
                        advance(); // another agent reached the cut-over first
                    }
                });
            }

            @Override
            public CompletionStage<Void> ping() {
                return port.ping();
            }

            @Override
            public Subscription subscribe(
                    byte[] channel, Consumer<byte[]> onMessage, Runnable onLost, Runnable onBack) {
                return port.subscribe(channel, onMessage, onLost, onBack);
            }

            @Override
            public List<EvictionPolicy.Reading> evictionPolicies() {
                return port.evictionPolicies();
            }

            @Override
            public CompletionStage<MemoryInfo> memory(int shard) {
                return port.memory(shard);
            }

            @Override
            public Map<String, Object> stats(int shard) {
                return port.stats(shard);
            }

            @Override
            public void close() {
                port.close();
            }
        };
    }

    /**
     * Completes when claims made at {@code nowMillis} may be routed: at once, or, when the cut-over is due and
     * not yet made, once it is.
     */
    public CompletionStage<Void> routable(long nowMillis) {
        if (cutOver || Math.floorDiv(nowMillis, 1000L) < lists.cutoverSecond()) {
            return CompletableFuture.completedFuture(null);
        }
        CompletableFuture<Void> last = cutting.get();
        if (last != null && last.isCompletedExceptionally() && System.nanoTime() - lastFailure < RETRY_NANOS) {
            return CompletableFuture.completedFuture(null); // tried a moment ago: route as before meanwhile
        }
        // A cut-over that cannot finish (a shard down) leaves claims routed as before: the shards it reached
        // refuse them (503) and the others still decide, rather than every claim waiting on one shard.
        return advance().exceptionally(failure -> null);
    }

    private static final long RETRY_NANOS = TimeUnit.SECONDS.toNanos(1);
    private volatile long lastFailure;

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
        for (int s = 0; s < before.length; s++) {
            int shard = s;
            advanced.add(RecordCall.advance(port, shard, key[shard], after[shard], before[shard])
                    .<Void>thenApply(now -> {
                        held.set(shard, now);
                        if (!text(after[shard]).equals(now)) {
                            throw new StoreUnavailableException(
                                    FailureKind.TOPOLOGY,
                                    "redis shard " + port.name(shard) + " holds "
                                            + (now == null ? "no topology record" : "\"" + now + "\"")
                                            + " at the cut-over, not \"" + text(before[shard]) + "\"",
                                    null);
                        }
                        return null;
                    })
                    .toCompletableFuture());
        }
        CompletableFuture.allOf(advanced.toArray(CompletableFuture[]::new)).whenComplete((ok, failure) -> {
            if (failure != null) {
                LOG.log(Level.WARNING, "redis: the cut-over is not done yet (tried again shortly): " + failure);
                lastFailure = System.nanoTime();
                mine.completeExceptionally(failure);
                return;
            }
            cutOver = true;
            LOG.log(
                    Level.INFO,
                    "redis: cut over to --redis at " + java.time.Instant.ofEpochMilli(clockMillis.getAsLong())
                            + " (declared for " + java.time.Instant.ofEpochSecond(lists.cutoverSecond())
                            + "); ids whose shard changed are looked up in the previous list too until its claims"
                            + " have ended");
            mine.complete(null);
        });
        return mine;
    }

    private static boolean mentions(Throwable t, String text) {
        for (Throwable c = t; c != null; c = c.getCause()) {
            if (c.getMessage() != null && c.getMessage().contains(text)) {
                return true;
            }
        }
        return false;
    }

    boolean ok(int shard) {
        return text(expected(shard)).equals(held.get(shard));
    }

    /** Why the shards are not all in the topology, or null when they are. */
    public String problem() {
        List<String> wrong = new ArrayList<>();
        for (int s = 0; s < before.length; s++) {
            if (!ok(s)) {
                wrong.add(port.name(s)
                        + (held.get(s) == null ? " has no topology record" : " holds \"" + held.get(s) + "\""));
            }
        }
        return wrong.isEmpty()
                ? null
                : "redis shards not in the topology: " + wrong
                        + "; their ids are answered 503 until an operator accepts the loss (docs/redis.md#a-shard-that-lost-its-data)";
    }

    /** The shard's part of {@code /v1/stats}. */
    public Map<String, Object> stats(int shard) {
        Map<String, Object> s = new LinkedHashMap<>();
        s.put("expected", text(expected(shard)));
        s.put("held", held.get(shard));
        s.put("ok", ok(shard));
        return s;
    }

    private void watch() {
        if (lists.changing() && !cutOver && Math.floorDiv(clockMillis.getAsLong(), 1000L) >= lists.cutoverSecond()) {
            advance();
        }
        for (int s = 0; s < before.length; s++) {
            String now;
            try {
                now = read(port, s, key[s]);
            } catch (RuntimeException e) {
                continue; // an unreachable shard is the connection's business, not the topology's
            }
            String was = held.getAndSet(s, now);
            if (!java.util.Objects.equals(was, now) && !ok(s)) {
                if (now != null && text(after[s]).equals(now) && !cutOver) {
                    advance();
                } else if (movedOn(now)) {
                    LOG.log(
                            Level.ERROR,
                            "redis shard " + port.name(s) + " now holds \"" + now + "\": the deployment changed its"
                                    + " shard list (a later topology epoch) and this agent's --redis is the old one;"
                                    + " its ids are answered 503 until it is restarted with the new list"
                                    + " (docs/redis.md#changing-the-shard-list)");
                } else {
                    LOG.log(
                            Level.ERROR,
                            "redis shard " + port.name(s)
                                    + (now == null ? " has lost its topology record" : " now holds \"" + now + "\"")
                                    + ": it lost its data or was replaced; its ids are answered 503 until an"
                                    + " operator accepts the loss (docs/redis.md#a-shard-that-lost-its-data)");
                }
            } else if (!java.util.Objects.equals(was, now) && ok(s)) {
                LOG.log(Level.INFO, "redis shard " + port.name(s) + " holds its topology record again");
            }
        }
    }

    /** Whether {@code record} is this deployment's in a later epoch than the one this agent writes in. */
    private boolean movedOn(String record) {
        Map<String, String> mine = TopologyRecord.parse(text(after[0]));
        Map<String, String> r = record == null ? null : TopologyRecord.parse(record);
        return r != null
                && mine != null
                && r.get("deployment").equals(mine.get("deployment"))
                && Long.parseLong(r.get("epoch")) > Long.parseLong(mine.get("epoch"));
    }

    @Override
    public void close() {
        watching.cancel(false);
    }

    private static String read(RedisPort port, int shard, byte[] key) {
        return RecordCall.read(port, shard, key).toCompletableFuture().join();
    }

    private static String stamp(RedisPort port, int shard, byte[] key, byte[] record) {
        return RecordCall.stamp(port, shard, key, record).toCompletableFuture().join();
    }

    private static String text(byte[] b) {
        return TopologyRecord.text(b);
    }
}
