package dev.dedup.agent.store.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dedup.agent.Agent;
import dev.dedup.agent.testing.AgentHttp;
import dev.dedup.agent.testing.FakeClock;
import dev.dedup.agent.testing.RedisCluster;
import dev.dedup.agent.testing.RedisServer;
import dev.dedup.wire.Item;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A Redis Cluster of three masters, each with a replica, changes under two workers claiming fresh ids as fast
 * as they can: slots holding groups are resharded to another master, or a master is killed (SIGKILL) and its
 * replica promoted. Every answer must be right or 503: a fresh id is never {@code duplicate} (a false drop).
 * Afterwards every answered id is sent again by another owner: an answer {@code new} there is a duplicate
 * that slipped through. A reshard loses nothing ({@code MIGRATE} moves keys atomically), so none may slip;
 * a failover may lose the claims the master had not yet sent to its replica (asynchronous replication), so
 * they are counted and reported as {@link RedisFailoverUnderLoadIT} does. The near-cache is off: every answer
 * is Redis's.
 */
class RedisClusterUnderLoadIT {

    private static final int BATCH = 500;

    @TempDir
    Path dir;

    private RedisCluster cluster;
    private Agent agent;
    private AgentHttp http;

    @BeforeEach
    void start() throws Exception {
        cluster = RedisCluster.start(dir.resolve("cluster"), 3);
        agent = agent(cluster);
        http = new AgentHttp(agent.port());
    }

    /** Stops the agent before the cluster it runs on; what never started is skipped. */
    @AfterEach
    void stop() {
        try (RedisCluster started = cluster;
                Agent on = agent) {
            // closed in reverse order: the agent, then the cluster
        }
    }

    /** What one run saw. */
    private record Outcome(
            long answeredIds, long failedBatches, Map<String, Integer> errors, long slipped, long falseDrops) {}

    @Test
    void reshardUnderLoad_onlyRightAnswersOr503_noFalseDrop_noDuplicateSlips() throws Exception {
        RedisServer from = cluster.ownerOfSlot(0);
        RedisServer to =
                cluster.masters().stream().filter(m -> m != from).findFirst().orElseThrow();
        long movedBefore = cluster.errorCount("MOVED") + cluster.errorCount("ASK");
        long t0 = System.nanoTime();
        Outcome o = underLoad(http, "reshard", () -> {
            // Slots 0..1099 hold groups 0, 16 and 8 of 32 (slots 0, 512 and 1024) and their claims.
            cluster.redisCli(
                    List.of(
                            "redis-cli",
                            "--cluster",
                            "reshard",
                            "127.0.0.1:" + from.port(),
                            "--cluster-from",
                            RedisCluster.nodeId(from),
                            "--cluster-to",
                            RedisCluster.nodeId(to),
                            "--cluster-slots",
                            "1100",
                            "--cluster-yes"),
                    Duration.ofSeconds(60));
            return null;
        });
        double seconds = (System.nanoTime() - t0) / 1e9;
        assertEquals(to.port(), cluster.ownerOfSlot(0).port(), "group 0's slot moved");
        String movedKeys = to.command("CLUSTER", "COUNTKEYSINSLOT", "0");
        assertTrue(!movedKeys.startsWith(":0"), "group 0's keys are on the target: " + movedKeys);
        long redirected = cluster.errorCount("MOVED") + cluster.errorCount("ASK") - movedBefore;
        System.out.printf(
                Locale.ROOT,
                "reshard under load (1,100 slots, 3 of 32 groups) in %.1f s: %,d ids answered, %d batches 503 %s,"
                        + " %d MOVED/ASK redirections followed, %d duplicates slipped, %d false drops%n",
                seconds,
                o.answeredIds,
                o.failedBatches,
                o.errors,
                redirected,
                o.slipped,
                o.falseDrops);
        assertEquals(0, o.falseDrops, "no unclaimed id answered duplicate");
        assertEquals(0, o.slipped, "a reshard moves claims, it loses none");
        assertTrue(o.answeredIds > 0);
    }

    @Test
    void masterFailoverUnderLoad_onlyRightAnswersOr503_noFalseDrop_slippedDuplicatesCounted() throws Exception {
        RedisServer master = cluster.ownerOfSlot(0);
        RedisServer replica = cluster.replicaOf(master);
        AtomicLong promotedAfterMillis = new AtomicLong();
        Outcome o = underLoad(http, "failover", () -> {
            long killed = System.nanoTime();
            master.kill();
            RedisServer.await(Duration.ofSeconds(30), () -> RedisCluster.isMaster(replica));
            promotedAfterMillis.set((System.nanoTime() - killed) / 1_000_000);
            return null;
        });
        System.out.printf(
                Locale.ROOT,
                "master failover under load (replica promoted %,d ms after the kill): %,d ids answered, %d"
                        + " batches 503 %s, %d duplicates slipped, %d false drops%n",
                promotedAfterMillis.get(),
                o.answeredIds,
                o.failedBatches,
                o.errors,
                o.slipped,
                o.falseDrops);
        assertEquals(0, o.falseDrops, "no unclaimed id answered duplicate");
        assertTrue(o.answeredIds > 0);
    }

    private Agent agent(RedisCluster cluster) {
        return RedisTier.agentAt(
                dir,
                List.of(cluster.uri()),
                RedisTier.Layout.defaults(Duration.ofMillis(1000)),
                0,
                new FakeClock(RedisTier.EPOCH));
    }

    /** A 503's reason in a word: the Redis error code, or what happened to the connection. */
    private static String reason(String body) {
        java.util.regex.Matcher m =
                java.util.regex.Pattern.compile("answered: ([A-Z]+)").matcher(body);
        if (m.find()) {
            return m.group(1);
        }
        if (body.contains("not connected")) {
            return "connection";
        }
        if (body.contains("in time")) {
            return "timeout";
        }
        String after = body.replaceAll("(?s).*? group \\d+:? ?", "");
        return after.length() > 60 ? after.substring(0, 60) : after;
    }

    /**
     * Two workers claim fresh ids for a second, then {@code fault} runs; the load goes on until at least 5
     * more batches are answered after it, then every answered batch is sent again by another owner and every
     * failed one by its own.
     */
    private static Outcome underLoad(AgentHttp http, String name, java.util.concurrent.Callable<Void> fault)
            throws Exception {
        AtomicBoolean stop = new AtomicBoolean();
        AtomicLong batchNumbers = new AtomicLong();
        List<List<Item>> answered = Collections.synchronizedList(new ArrayList<>());
        List<List<Item>> failed = Collections.synchronizedList(new ArrayList<>());
        Map<String, Integer> errors = Collections.synchronizedMap(new TreeMap<>());
        AtomicReference<Throwable> wrong = new AtomicReference<>();
        List<Thread> workers = new ArrayList<>();
        for (int w = 0; w < 2; w++) {
            workers.add(new Thread(() -> {
                try {
                    while (!stop.get()) {
                        List<Item> batch = RedisTier.items(name + "-b" + batchNumbers.incrementAndGet(), 0, BATCH, "p");
                        HttpResponse<byte[]> r = RedisTier.postClaims(http, batch);
                        if (r.statusCode() == 200) {
                            for (byte v : r.body()) {
                                if (v != 0) {
                                    throw new AssertionError("a fresh id answered " + v);
                                }
                            }
                            answered.add(batch);
                        } else {
                            assertEquals(503, r.statusCode(), AgentHttp.text(r));
                            String text = AgentHttp.text(r);
                            errors.merge(reason(text), 1, Integer::sum);
                            failed.add(batch);
                            Thread.sleep(50); // as a worker honouring Retry-After would, only shorter
                        }
                    }
                } catch (Throwable t) {
                    wrong.compareAndSet(null, t);
                }
            }));
        }
        workers.forEach(t -> {
            t.setDaemon(true);
            t.start();
        });
        try {
            Thread.sleep(1000);
            fault.call();
            long after = answered.size();
            RedisServer.await(Duration.ofSeconds(60), () -> answered.size() > after + 4 || wrong.get() != null);
        } finally {
            stop.set(true);
            for (Thread t : workers) {
                t.join(30_000);
            }
        }
        if (wrong.get() != null) {
            throw new AssertionError("a worker saw a wrong answer", wrong.get());
        }
        RedisTier.Recheck again = RedisTier.recheck(http, answered, failed);
        List<Item> fresh = RedisTier.items(name + "-after", 0, 1000, "p");
        RedisTier.assertNoFalseDuplicate(fresh, http.claim(RedisTier.NS, fresh));
        return new Outcome(again.ids(), failed.size(), new TreeMap<>(errors), again.slipped(), again.falseDrops());
    }
}
