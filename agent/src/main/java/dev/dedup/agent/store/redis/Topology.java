package dev.dedup.agent.store.redis;

import dev.dedup.agent.config.ConfigException;
import dev.dedup.agent.metrics.MetricNames;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.lang.System.Logger.Level;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.function.Consumer;

/**
 * The shards' own record of the topology they belong to, so that nothing is forgotten by accident.
 *
 * <p>Every shard holds a record {@code <prefix>:topology} = {@code dedup-topology v1 deployment=<id>
 * epoch=<n> shard=<i> of=<k>}: which deployment it belongs to and where it stands in the shard list. At
 * start the agent reads every shard's record and:
 *
 * <ul>
 *   <li>when no shard has one (a new deployment, or shards written by a version without records),
 *       stamps them in the order of {@code --redis};
 *   <li>when every shard's record agrees with the order of {@code --redis}, starts;
 *   <li>otherwise refuses to start (exit 2) with one line saying what differs: a shard added or removed,
 *       the order changed, a shard of another deployment, or a shard without a record among shards with
 *       one (it lost its data, or was added without declaring the change). {@code
 *       --redis-adopt-empty-shards} stamps such shards instead, accepting that their claims are gone.
 * </ul>
 *
 * <p>Then every claim, release and range script checks the record first ({@code guard.lua}), in the same
 * call: a shard that restarted empty, was flushed or was replaced answers nothing but an error, which the
 * agent turns into 503 ({@code kind=topology}) for the ids on it; never {@code new} for an id it claimed
 * before. A watch reads the records every {@value #WATCH_SECONDS} seconds to report such a shard in
 * {@code /health/ready}, {@code /v1/stats}, the log and {@code dedup_redis_shard_topology_ok}.
 */
final class Topology implements AutoCloseable {

    private static final System.Logger LOG = System.getLogger(Topology.class.getName());
    static final int WATCH_SECONDS = 2;
    private static final String PREFIX = "dedup-topology v1 ";
    private static final byte[] READ = new byte[0];

    private final RedisPort port;
    private final byte[] key;
    private final byte[][] expected;
    /** What each shard held when last read. */
    private final AtomicReferenceArray<String> held;

    private final ScheduledExecutorService timer;

    private Topology(RedisPort port, byte[] key, byte[][] expected, MeterRegistry registry) {
        this.port = port;
        this.key = key;
        this.expected = expected;
        this.held = new AtomicReferenceArray<>(expected.length);
        for (int s = 0; s < expected.length; s++) {
            held.set(s, text(expected[s]));
            int shard = s;
            Gauge.builder(MetricNames.REDIS_SHARD_TOPOLOGY_OK, () -> ok(shard) ? 1 : 0)
                    .tag(MetricNames.TAG_SHARD, String.valueOf(s))
                    .description("1 while the shard holds the topology record the agent expects; 0 when it lost"
                            + " its data or belongs elsewhere (its ids are answered 503)")
                    .register(registry);
        }
        this.timer = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "dedup-redis-topology");
            t.setDaemon(true);
            return t;
        });
        timer.scheduleWithFixedDelay(this::watch, WATCH_SECONDS, WATCH_SECONDS, TimeUnit.SECONDS);
    }

    /**
     * Reads every shard's record and agrees, stamps or refuses as the class says.
     *
     * @throws ConfigException naming what differs and how to declare a change (the agent exits 2)
     */
    static Topology agreeOrRefuse(RedisPort port, RedisKeys keys, boolean adoptEmpty, MeterRegistry registry) {
        byte[] key = keys.topology();
        int k = port.shards();
        String[] records = new String[k];
        for (int s = 0; s < k; s++) {
            records[s] = read(port, s, key);
        }
        String deployment = null;
        long epoch = 1;
        List<String> missing = new ArrayList<>();
        for (int s = 0; s < k; s++) {
            if (records[s] == null) {
                missing.add(port.name(s));
                continue;
            }
            Map<String, String> r = parse(records[s]);
            if (r == null) {
                throw new ConfigException("redis: shard " + port.name(s) + " holds \"" + records[s] + "\" under "
                        + text(key) + ", not a topology record of this agent; is --redis-prefix right?");
            }
            if (deployment == null) {
                deployment = r.get("deployment");
                epoch = Long.parseLong(r.get("epoch"));
            } else if (!deployment.equals(r.get("deployment"))) {
                throw new ConfigException("redis: shard " + port.name(s) + " belongs to deployment "
                        + r.get("deployment") + ", the shards before it to " + deployment
                        + ": --redis mixes shards of two deployments");
            }
            int position = Integer.parseInt(r.get("shard"));
            int of = Integer.parseInt(r.get("of"));
            if (position != s || of != k) {
                throw new ConfigException("redis: shard " + port.name(s) + " is shard " + position + " of " + of
                        + " in topology epoch " + r.get("epoch") + ", but --redis lists it as shard " + s + " of " + k
                        + ": the shard list changed without a declared transition, which would forget claims."
                        + " Restore the order and count it was started with; to add or remove shards, follow"
                        + " docs/redis.md#changing-the-shard-list");
            }
        }
        if (deployment == null) {
            deployment = UUID.randomUUID().toString();
            LOG.log(
                    Level.INFO,
                    "redis: no shard holds a topology record; stamping " + k + " shards as deployment " + deployment
                            + " in the order of --redis");
        } else if (!missing.isEmpty()) {
            if (!adoptEmpty) {
                throw new ConfigException("redis: " + missing + " hold no topology record while the other shards do:"
                        + " each lost its data (restarted without persistence, flushed, or replaced by an empty node) or"
                        + " was added without a declared transition. Its claims are gone either way; to accept that"
                        + " and stamp it, start one agent with --redis-adopt-empty-shards, then without it");
            }
            LOG.log(
                    Level.WARNING,
                    "redis: adopting " + missing + " (no topology record): claims they held are"
                            + " forgotten; ids on them are answered new again");
        }
        byte[][] expected = new byte[k][];
        for (int s = 0; s < k; s++) {
            expected[s] = record(deployment, epoch, s, k);
            if (records[s] == null) {
                String now = stamp(port, s, key, expected[s]);
                if (!now.equals(text(expected[s]))) {
                    throw new ConfigException("redis: shard " + port.name(s) + " was stamped \"" + now
                            + "\" by another agent starting with another shard list at the same time");
                }
            }
        }
        return new Topology(port, key, expected, registry);
    }

    /**
     * {@code port}, whose calls of a {@link RedisScript#guarded() guarded} script carry the topology record's
     * key last among the keys and the shard's expected record last among the arguments.
     */
    RedisPort guarded() {
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
                k[keys.length] = key;
                byte[][] a = Arrays.copyOf(args, args.length + 1);
                a[args.length] = expected[shard];
                return port.eval(shard, script, mode, k, a);
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
            public int listpackEntries(int shard) {
                return port.listpackEntries(shard);
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

    boolean ok(int shard) {
        return text(expected[shard]).equals(held.get(shard));
    }

    /** Why the shards are not all in the topology, or null when they are. */
    String problem() {
        List<String> wrong = new ArrayList<>();
        for (int s = 0; s < expected.length; s++) {
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
    Map<String, Object> stats(int shard) {
        Map<String, Object> s = new LinkedHashMap<>();
        s.put("expected", text(expected[shard]));
        s.put("held", held.get(shard));
        s.put("ok", ok(shard));
        return s;
    }

    private void watch() {
        for (int s = 0; s < expected.length; s++) {
            String now;
            try {
                now = read(port, s, key);
            } catch (RuntimeException e) {
                continue; // an unreachable shard is the connection's business, not the topology's
            }
            String before = held.getAndSet(s, now);
            if (!java.util.Objects.equals(before, now) && !ok(s)) {
                LOG.log(
                        Level.ERROR,
                        "redis shard " + port.name(s)
                                + (now == null ? " has lost its topology record" : " now holds \"" + now + "\"")
                                + ": it lost its data or was replaced; its ids are answered"
                                + " 503 until an operator accepts the loss (docs/redis.md#a-shard-that-lost-its-data)");
            } else if (!java.util.Objects.equals(before, now) && ok(s)) {
                LOG.log(Level.INFO, "redis shard " + port.name(s) + " holds its topology record again");
            }
        }
    }

    @Override
    public void close() {
        timer.shutdownNow();
    }

    private static String read(RedisPort port, int shard, byte[] key) {
        return call(port, shard, key, READ);
    }

    private static String stamp(RedisPort port, int shard, byte[] key, byte[] record) {
        return call(port, shard, key, record);
    }

    private static String call(RedisPort port, int shard, byte[] key, byte[] arg) {
        List<Object> reply = port.eval(
                        shard, RedisScript.TOPOLOGY, Mode.TOPOLOGY, new byte[][] {key}, new byte[][] {arg})
                .toCompletableFuture()
                .join();
        Object value = reply.isEmpty() ? null : reply.get(0);
        return value instanceof byte[] b && b.length > 0 ? text(b) : null;
    }

    static byte[] record(String deployment, long epoch, int shard, int of) {
        return (PREFIX + "deployment=" + deployment + " epoch=" + epoch + " shard=" + shard + " of=" + of)
                .getBytes(StandardCharsets.US_ASCII);
    }

    /** The fields of a record, or null when the text is not one. */
    static Map<String, String> parse(String record) {
        if (!record.startsWith(PREFIX)) {
            return null;
        }
        Map<String, String> fields = new LinkedHashMap<>();
        for (String pair : record.substring(PREFIX.length()).split(" ")) {
            int eq = pair.indexOf('=');
            if (eq > 0) {
                fields.put(pair.substring(0, eq), pair.substring(eq + 1));
            }
        }
        for (String name : List.of("deployment", "epoch", "shard", "of")) {
            if (!fields.containsKey(name)
                    || (!name.equals("deployment") && !fields.get(name).matches("\\d{1,9}"))) {
                return null;
            }
        }
        return fields;
    }

    private static String text(byte[] b) {
        return new String(b, StandardCharsets.US_ASCII);
    }
}
