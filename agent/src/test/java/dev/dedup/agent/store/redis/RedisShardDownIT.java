package dev.dedup.agent.store.redis;

import static dev.dedup.agent.store.redis.RedisTier.items;
import static dev.dedup.agent.store.redis.RedisTier.withOwner;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dedup.agent.Agent;
import dev.dedup.agent.store.IncompatibleDeploymentException;
import dev.dedup.agent.testing.AgentHttp;
import dev.dedup.agent.testing.FakeClock;
import dev.dedup.agent.testing.RedisServer;
import dev.dedup.agent.testing.RedisShards;
import dev.dedup.agent.testing.Shards;
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
 * One of three shards (no persistence) is killed: batches that touch only the others still succeed, a batch
 * that touches it is refused with 503 naming it. When it comes back empty (no persistence), it has lost its
 * topology record with its claims: its ids are answered 503, never {@code new}, until an operator accepts
 * the loss (one start with {@code --redis-adopt-empty-shards}); then they are {@code new} again, never
 * {@code duplicate}. The near-cache is off, so every answer comes from Redis.
 */
class RedisShardDownIT {

    private static final Duration TIMEOUT = Duration.ofMillis(500);

    @TempDir
    Path dir;

    @Test
    void deadShard_failsOnlyBatchesTouchingIt_andComesBackEmptyWithoutFalseDuplicates(@Shards(3) RedisShards shards)
            throws Exception {
        RedisServer dead = shards.get(1);
        List<Item> onLive = new ArrayList<>();
        List<Item> onDead = new ArrayList<>();
        try (Agent agent =
                RedisTier.agent(dir, shards, RedisTier.Layout.defaults(TIMEOUT), 0, new FakeClock(RedisTier.EPOCH))) {
            AgentHttp http = new AgentHttp(agent.port());
            List<Item> claimed = items("sd", 0, 300, "o1");
            assertEquals(Collections.nCopies(300, "new"), http.claim(RedisTier.NS, claimed));

            dead.kill();

            // Which ids live on the dead shard: ask one at a time.
            for (Item item : claimed) {
                HttpResponse<byte[]> r = RedisTier.postClaims(http, List.of(item));
                if (r.statusCode() == 200) {
                    assertEquals(List.of("retry"), AgentHttp.verdicts(r), item.toString());
                    onLive.add(item);
                } else {
                    assertEquals(503, r.statusCode(), AgentHttp.text(r));
                    onDead.add(item);
                }
            }
            // Jump hash over 3 shards: about a third each.
            assertTrue(
                    onDead.size() > 50 && onLive.size() > 150,
                    onDead.size() + " on the dead shard, " + onLive.size() + " on the live ones");

            // Batches of live-shard ids only: answered.
            assertEquals(Collections.nCopies(onLive.size(), "retry"), http.claim(RedisTier.NS, onLive));
            List<Item> liveCopies = withOwner(onLive, "o2");
            assertEquals(List.of(), RedisTier.slippedDuplicates(liveCopies, http.claim(RedisTier.NS, liveCopies)));

            // One dead-shard id in a batch fails the batch: 503, Retry-After, the shard named.
            List<Item> mixed = new ArrayList<>(onLive);
            mixed.add(onDead.get(0));
            HttpResponse<byte[]> refused = RedisTier.postClaims(http, mixed);
            assertEquals(503, refused.statusCode(), AgentHttp.text(refused));
            assertTrue(refused.headers().firstValue("Retry-After").isPresent(), "Retry-After on a 503");
            JsonObject error = new JsonObject(AgentHttp.text(refused));
            assertEquals("unavailable", error.getString("error"));
            assertTrue(
                    error.getString("message").contains("127.0.0.1:" + dead.port()),
                    "the message names the dead shard " + dead.uri() + ": " + error);
            assertEquals(503, http.get("/health/ready").statusCode());

            dead.restart(); // no AOF, no RDB: it comes back empty, without its topology record

            // Its ids are never answered new while the loss is not accepted: 503, the shard named.
            List<Item> deadCopies = withOwner(onDead, "o3");
            RedisServer.await(
                    Duration.ofSeconds(20),
                    () -> RedisTier.postClaims(http, deadCopies.subList(0, 1)).statusCode() == 503
                            && AgentHttp.text(RedisTier.postClaims(http, deadCopies.subList(0, 1)))
                                    .contains("topology"));
            HttpResponse<byte[]> lost = RedisTier.postClaims(http, deadCopies);
            assertEquals(503, lost.statusCode(), AgentHttp.text(lost));
            assertTrue(AgentHttp.text(lost).contains("no topology record"), AgentHttp.text(lost));
            RedisServer.await(
                    Duration.ofSeconds(10),
                    () -> RedisTier.metric(http, "dedup_redis_shard_topology_ok", "shard=\"1\"") == 0);
            HttpResponse<byte[]> ready = http.get("/health/ready");
            assertEquals(503, ready.statusCode());
            assertTrue(AgentHttp.text(ready).contains("127.0.0.1:" + dead.port()), AgentHttp.text(ready));
            assertTrue(RedisTier.metric(http, "dedup_store_errors_total", "kind=\"topology\"") >= 1);
            // Live shards kept everything and still answer.
            assertEquals(Collections.nCopies(onLive.size(), "retry"), http.claim(RedisTier.NS, onLive));
        }

        // An agent restarted now refuses to start: the loss must be accepted explicitly.
        IncompatibleDeploymentException refused = assertThrows(
                IncompatibleDeploymentException.class,
                () -> RedisTier.agent(
                        dir, shards, RedisTier.Layout.defaults(TIMEOUT), 0, new FakeClock(RedisTier.EPOCH)));
        assertTrue(
                refused.getMessage().contains("127.0.0.1:" + dead.port())
                        && refused.getMessage().contains("--redis-adopt-empty-shards"),
                refused.getMessage());

        // The operator accepts it: one start with --redis-adopt-empty-shards stamps the shard.
        try (Agent adopting = RedisTier.agent(
                dir,
                shards,
                RedisTier.Layout.defaults(TIMEOUT).adoptingEmptyShards(),
                0,
                new FakeClock(RedisTier.EPOCH))) {
            AgentHttp http = new AgentHttp(adopting.port());
            assertEquals(200, http.get("/health/ready").statusCode());
            // The claims the shard held are gone, as accepted: new again, never a false duplicate.
            List<Item> deadCopies = withOwner(onDead, "o3");
            List<String> afterLoss = http.claim(RedisTier.NS, deadCopies);
            RedisTier.assertNoFalseDuplicate(deadCopies, afterLoss);
            List<Item> fresh = items("sd-fresh", 0, 300, "o4");
            List<String> freshVerdicts = http.claim(RedisTier.NS, fresh);
            RedisTier.assertNoFalseDuplicate(fresh, freshVerdicts);
            assertEquals(Collections.nCopies(300, "new"), freshVerdicts);
        }
    }
}
