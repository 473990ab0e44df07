package dev.dedup.agent.store.redis;

import static dev.dedup.agent.store.redis.RedisTier.items;
import static dev.dedup.agent.store.redis.RedisTier.withOwner;
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
 * A shard at {@code maxmemory} with {@code noeviction} refuses writes: the agent answers 503 rather than
 * guessing, counts the failure as {@code oom}, and still answers claims that need no write. The
 * near-cache is off, so every answer comes from Redis.
 */
class RedisOutOfMemoryIT {

    @TempDir
    Path dir;

    /** The ids a full shard took, and its answer to the batch it refused. */
    private record Filled(List<Item> claimed, HttpResponse<byte[]> refusal) {}

    /** Claims fresh ids in batches of 2,000 until the shard refuses one. */
    private static Filled claimUntilRefused(AgentHttp http, RedisServer redis) throws Exception {
        List<Item> claimed = new ArrayList<>();
        for (int batch = 0; batch < 200; batch++) {
            List<Item> items = items("oom-" + batch, 0, 2000, "o" + batch);
            HttpResponse<byte[]> r = RedisTier.postClaims(http, items);
            if (r.statusCode() != 200) {
                return new Filled(claimed, r);
            }
            List<String> verdicts = AgentHttp.verdicts(r);
            assertEquals(
                    Collections.nCopies(items.size(), "new"),
                    verdicts,
                    "fresh ids before the limit: " + RedisTier.tally(verdicts));
            claimed.addAll(items);
        }
        throw new AssertionError("Redis never refused a write; used_memory " + redis.info("memory", "used_memory"));
    }

    /** Puts the limit well below the memory used, so that every write is refused from now on. */
    private static void overLimit(RedisServer redis) throws Exception {
        long used = redis.info("memory", "used_memory");
        assertEquals("OK", redis.call("CONFIG", "SET", "maxmemory", String.valueOf(used / 2)));
    }

    private static RedisServer fullShard(Path dir) throws Exception {
        return RedisServer.start(dir.resolve("redis"), "--maxmemory", "2mb");
    }

    private static Agent agent(Path dir, RedisServer redis) {
        return RedisTier.agent(
                dir,
                List.of(redis),
                RedisTier.Layout.defaults(Duration.ofSeconds(5)),
                0,
                new FakeClock(RedisTier.EPOCH));
    }

    @Test
    void shardOutOfMemory_refusesFreshClaimsWith503CountedAsOom_andNeverGuesses() throws Exception {
        try (RedisServer redis = fullShard(dir);
                Agent agent = agent(dir, redis)) {
            AgentHttp http = new AgentHttp(agent.port());
            Filled filled = claimUntilRefused(http, redis);
            List<Item> claimed = filled.claimed();
            HttpResponse<byte[]> refused = filled.refusal();
            assertEquals(503, refused.statusCode(), describe(refused));
            assertTrue(refused.headers().firstValue("Retry-After").isPresent(), "Retry-After on a 503");
            JsonObject error = new JsonObject(AgentHttp.text(refused));
            assertEquals("unavailable", error.getString("error"));
            assertTrue(claimed.size() > 10_000, "claims before the limit: " + claimed.size());
            assertTrue(
                    RedisTier.metric(http, "dedup_store_errors_total", "kind=\"oom\"") >= 1.0,
                    "a 503 for a full shard is counted as oom: " + error + "\n"
                            + metricsLines(http, "dedup_store_errors_total"));

            // Right at the limit a smaller batch may fit again; well over it, fresh ids get 503, never a guess.
            overLimit(redis);
            List<Item> more = items("oom-more", 0, 500, "m");
            HttpResponse<byte[]> again = RedisTier.postClaims(http, more);
            assertEquals(503, again.statusCode(), () -> describe(again));
            assertTrue(
                    RedisTier.metric(http, "dedup_store_errors_total", "kind=\"oom\"") >= 2.0,
                    () -> metricsLines(http, "dedup_store_errors_total"));

            // Room made (as an operator would, by raising maxmemory): nothing was lost, nothing half-claimed.
            assertEquals("OK", redis.call("CONFIG", "SET", "maxmemory", "0"));
            List<String> resent = http.claim(RedisTier.NS, more);
            RedisTier.assertNoFalseDuplicate(more, resent);
            assertEquals(Collections.nCopies(500, "new"), resent);
            List<Item> copies = withOwner(claimed.subList(claimed.size() - 5000, claimed.size()), "another-owner");
            assertEquals(List.of(), RedisTier.slippedDuplicates(copies, http.claim(RedisTier.NS, copies)));
        }
    }

    /**
     * A full shard can still decide ids it already holds: answering {@code retry} or {@code duplicate}
     * writes nothing, so workers keep skipping copies while an operator makes room.
     */
    @Test
    void shardOutOfMemory_stillAnswersEarlierClaimsRetryAndDuplicate() throws Exception {
        try (RedisServer redis = fullShard(dir);
                Agent agent = agent(dir, redis)) {
            AgentHttp http = new AgentHttp(agent.port());
            List<Item> claimed = claimUntilRefused(http, redis).claimed();
            overLimit(redis);
            assertEquals(
                    503,
                    RedisTier.postClaims(http, items("oom-more", 0, 500, "m")).statusCode(),
                    "the shard refuses fresh claims");

            List<Item> sample = claimed.subList(0, 5000);
            HttpResponse<byte[]> same = RedisTier.postClaims(http, sample);
            assertEquals(200, same.statusCode(), () -> describe(same));
            assertEquals(Collections.nCopies(sample.size(), "retry"), AgentHttp.verdicts(same));
            List<Item> copies = withOwner(sample, "another-owner");
            HttpResponse<byte[]> other = RedisTier.postClaims(http, copies);
            assertEquals(200, other.statusCode(), () -> describe(other));
            assertEquals(List.of(), RedisTier.slippedDuplicates(copies, AgentHttp.verdicts(other)));
        }
    }

    private static String describe(HttpResponse<byte[]> r) {
        return r.statusCode() == 200 ? "200 " + RedisTier.tally(AgentHttp.verdicts(r)) : AgentHttp.text(r);
    }

    private static String metricsLines(AgentHttp http, String name) {
        StringBuilder out = new StringBuilder();
        for (String line : AgentHttp.text(http.get("/metrics")).split("\n")) {
            if (line.startsWith(name)) {
                out.append(line).append('\n');
            }
        }
        return out.toString();
    }
}
