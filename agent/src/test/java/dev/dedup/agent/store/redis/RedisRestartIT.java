package dev.dedup.agent.store.redis;

import static dev.dedup.agent.store.redis.RedisTier.items;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dedup.agent.Agent;
import dev.dedup.agent.testing.AgentHttp;
import dev.dedup.agent.testing.FakeClock;
import dev.dedup.agent.testing.RedisServer;
import dev.dedup.wire.Item;
import io.vertx.core.json.JsonObject;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Redis with an append-only file fsynced on every write is killed with SIGKILL and started again on the
 * same directory and port. The near-cache is off, so every answer comes from Redis.
 */
class RedisRestartIT {

    private static final Duration TIMEOUT = Duration.ofMillis(500);

    @TempDir
    Path dir;

    @Test
    void whileRedisIsDown_claimsAre503AndNotReady_afterItsRestartTheAgentRecoversAndRemembersEveryClaim()
            throws Exception {
        try (RedisServer redis = RedisServer.startWithAof(dir.resolve("redis"));
                Agent agent = RedisTier.agent(
                        dir, List.of(redis), RedisTier.Layout.defaults(TIMEOUT), 0, new FakeClock(RedisTier.EPOCH))) {
            AgentHttp http = new AgentHttp(agent.port());
            List<Item> claimed = new ArrayList<>();
            for (int batch = 0; batch < 5; batch++) {
                List<Item> items = items("kept-" + batch, 0, 1000, "owner-" + batch);
                assertEquals(Collections.nCopies(1000, "new"), http.claim(RedisTier.NS, items));
                claimed.addAll(items);
            }

            redis.kill();

            List<Item> whileDown = items("while-down", 0, 100, "w");
            long start = System.nanoTime();
            HttpResponse<byte[]> down = RedisTier.postClaims(http, whileDown);
            long tookMillis = (System.nanoTime() - start) / 1_000_000;
            assertEquals(503, down.statusCode(), AgentHttp.text(down));
            assertTrue(down.headers().firstValue("Retry-After").isPresent(), "Retry-After on a 503");
            assertEquals("unavailable", new JsonObject(AgentHttp.text(down)).getString("error"));
            assertTrue(
                    tookMillis < TIMEOUT.toMillis() + 1500,
                    "a claim while Redis is down is answered within about redis-timeout, took " + tookMillis + " ms");
            HttpResponse<byte[]> notReady = http.get("/health/ready");
            assertEquals(503, notReady.statusCode(), AgentHttp.text(notReady));
            assertTrue(notReady.headers().firstValue("Retry-After").isPresent());

            redis.restart();
            RedisServer.await(Duration.ofSeconds(20), () -> RedisTier.status(http, "/health/ready") == 200);

            // No claim made before the crash is forgotten: none is answered new.
            List<String> sameOwner = http.claim(RedisTier.NS, claimed);
            assertEquals(
                    Collections.nCopies(claimed.size(), "retry"),
                    sameOwner,
                    () -> "tally " + RedisTier.tally(sameOwner));
            RedisTier.assertNoCopySlips(http, claimed, "another-owner", "the restart");

            // The batch refused while Redis was down was never claimed: sent again it is new, never duplicate.
            List<String> resent = http.claim(RedisTier.NS, whileDown);
            RedisTier.assertNoFalseDuplicate(whileDown, resent);
            assertEquals(Collections.nCopies(100, "new"), resent);
        }
    }

    /**
     * With the near-cache on: while the release channel is down the cache must not answer (a release
     * elsewhere would go unseen), so claims of cached ids are 503 like any other; after the restart the
     * cache starts empty and the answers come from Redis again.
     */
    @Test
    void whileTheReleaseChannelIsDown_theNearCacheIsClearedAndBypassed() throws Exception {
        try (RedisServer redis = RedisServer.startWithAof(dir.resolve("redis-nc"));
                Agent agent = RedisTier.agent(
                        dir,
                        List.of(redis),
                        RedisTier.Layout.defaults(TIMEOUT),
                        10_000,
                        new FakeClock(RedisTier.EPOCH))) {
            AgentHttp http = new AgentHttp(agent.port());
            List<Item> cached = items("cached", 0, 500, "o");
            assertEquals(Collections.nCopies(500, "new"), http.claim(RedisTier.NS, cached));
            assertEquals(Collections.nCopies(500, "retry"), http.claim(RedisTier.NS, cached), "answered by the cache");
            assertEquals(500, nearCache(http).getLong("size"));

            redis.kill();
            // Marked unusable first, then cleared (so that nothing is put back in between).
            RedisServer.await(
                    Duration.ofSeconds(10),
                    () -> !nearCache(http).getBoolean("usable")
                            && nearCache(http).getLong("size") == 0);
            HttpResponse<byte[]> down = RedisTier.postClaims(http, cached);
            assertEquals(
                    503,
                    down.statusCode(),
                    "cached ids are not answered from the cache while it cannot be " + "kept honest: "
                            + AgentHttp.text(down));

            redis.restart();
            // The command connection and the release subscription reconnect on their own schedules: wait
            // for both, or a claim may still meet the command link down (an honest 503, but not this test).
            RedisServer.await(
                    Duration.ofSeconds(20),
                    () -> nearCache(http).getBoolean("usable") && RedisTier.status(http, "/health/ready") == 200);
            long missesBefore = nearCache(http).getLong("misses");
            assertEquals(Collections.nCopies(500, "retry"), http.claim(RedisTier.NS, cached), "remembered by Redis");
            assertEquals(missesBefore + 500, nearCache(http).getLong("misses"), "answered by Redis, not the cache");
        }
    }

    private static JsonObject nearCache(AgentHttp http) {
        return new JsonObject(AgentHttp.text(http.get("/v1/stats")))
                .getJsonObject("store")
                .getJsonObject("near_cache");
    }
}
