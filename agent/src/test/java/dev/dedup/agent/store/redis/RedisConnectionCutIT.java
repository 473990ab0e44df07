package dev.dedup.agent.store.redis;

import static dev.dedup.agent.store.redis.RedisTier.items;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dedup.agent.Agent;
import dev.dedup.agent.testing.AgentHttp;
import dev.dedup.agent.testing.FakeClock;
import dev.dedup.agent.testing.RedisServer;
import dev.dedup.agent.testing.TcpProxy;
import dev.dedup.wire.Item;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The agent reaches Redis through a proxy that cuts or stalls the connection in the middle of script
 * calls. Every batch is answered either 200 with right verdicts or 503; resent afterwards, no item is
 * {@code duplicate} for its own owner, and every item answered before is {@code retry}.
 */
class RedisConnectionCutIT {

    private static final Duration TIMEOUT = Duration.ofMillis(500);

    @TempDir
    Path dir;

    @Test
    void cutAndStalledConnections_giveRightVerdictsOr503_neverAWrongOne() throws Exception {
        try (RedisServer redis = RedisServer.start(dir.resolve("redis"));
                TcpProxy proxy = new TcpProxy(redis.port())) {
            String uri = "redis://127.0.0.1:" + proxy.port();
            try (Agent agent = RedisTier.agentAt(
                    dir, List.of(uri), RedisTier.Layout.defaults(TIMEOUT), 0, new FakeClock(RedisTier.EPOCH))) {
                AgentHttp http = new AgentHttp(agent.port());
                Map<Integer, String> outcome = new ConcurrentHashMap<>();
                AtomicBoolean stop = new AtomicBoolean();
                AtomicInteger next = new AtomicInteger();
                Runnable sender = () -> {
                    while (!stop.get()) {
                        int n = next.getAndIncrement();
                        List<Item> batch = items("cut-" + n, 0, 200, "o" + n);
                        HttpResponse<byte[]> r = RedisTier.postClaims(http, batch);
                        if (r.statusCode() == 200) {
                            List<String> v = AgentHttp.verdicts(r);
                            outcome.put(n, v.stream().allMatch("new"::equals) ? "new" : "wrong:" + RedisTier.tally(v));
                        } else {
                            outcome.put(n, "status:" + r.statusCode());
                        }
                    }
                };
                List<Thread> threads = new ArrayList<>();
                for (int i = 0; i < 3; i++) {
                    Thread t = new Thread(sender);
                    threads.add(t);
                    t.start();
                }
                for (int round = 0; round < 5; round++) {
                    Thread.sleep(150);
                    proxy.dropAll();
                    Thread.sleep(150);
                    proxy.stall(true);
                    Thread.sleep(TIMEOUT.toMillis() + 200);
                    proxy.stall(false);
                    proxy.dropAll(); // a stalled connection is cut too, so that late replies cannot land
                }
                RedisServer.await(Duration.ofSeconds(20), () -> RedisTier.status(http, "/health/ready") == 200);
                Thread.sleep(300);
                stop.set(true);
                for (Thread t : threads) {
                    t.join(10_000);
                }

                assertTrue(
                        outcome.values().stream().allMatch(o -> o.equals("new") || o.equals("status:503")),
                        "every batch is right or 503: " + outcome);
                assertTrue(outcome.containsValue("status:503"), "the faults were felt");
                assertTrue(outcome.containsValue("new"), "batches got through between faults");

                int sent = next.get();
                for (int n = 0; n < sent; n++) {
                    List<Item> batch = items("cut-" + n, 0, 200, "o" + n);
                    List<String> resent = http.claim(RedisTier.NS, batch);
                    RedisTier.assertNoFalseDuplicate(batch, resent);
                    if ("new".equals(outcome.get(n))) {
                        assertEquals(
                                List.of("retry"), resent.stream().distinct().toList(), "batch " + n);
                    }
                }
            }
        }
    }
}
