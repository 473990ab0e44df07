package dev.dedup.agent.store.redis;

import static dev.dedup.agent.store.redis.RedisTier.items;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.dedup.agent.Agent;
import dev.dedup.agent.config.NearCacheOptions;
import dev.dedup.agent.testing.AgentHttp;
import dev.dedup.agent.testing.FakeClock;
import dev.dedup.agent.testing.RedisShards;
import dev.dedup.agent.testing.Shards;
import dev.dedup.wire.Item;
import io.vertx.core.json.JsonObject;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Collections;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An agent is closed and another started on the same shards: the claims live in Redis, not in the agent,
 * so the new agent (its near-cache empty) answers them {@code retry} and {@code duplicate}.
 */
class RedisAgentRestartIT {

    @TempDir
    Path dir;

    @Test
    void claimsThroughAClosedAgent_areRetryAndDuplicateThroughANewOneOnTheSameShards(@Shards(3) RedisShards shards)
            throws Exception {
        RedisTier.Layout layout = RedisTier.Layout.defaults(Duration.ofSeconds(5));
        FakeClock clock = new FakeClock(RedisTier.EPOCH);
        List<Item> claimed = items("first-agent", 0, 3000, "o1");
        try (Agent first = RedisTier.agent(dir, shards, layout, NearCacheOptions.DEFAULT_MAX_ENTRIES, clock)) {
            assertEquals(Collections.nCopies(3000, "new"), new AgentHttp(first.port()).claim(RedisTier.NS, claimed));
        }

        clock.advance(Duration.ofMinutes(5));
        try (Agent second = RedisTier.agent(dir, shards, layout, NearCacheOptions.DEFAULT_MAX_ENTRIES, clock)) {
            AgentHttp http = new AgentHttp(second.port());
            JsonObject near = new JsonObject(AgentHttp.text(AgentHttp.ok(http.get("/v1/stats"))))
                    .getJsonObject("store")
                    .getJsonObject("near_cache");
            assertEquals(0L, near.getLong("size"), "the new agent starts with an empty near-cache: " + near);

            assertEquals(Collections.nCopies(3000, "retry"), http.claim(RedisTier.NS, claimed));
            RedisTier.assertNoCopySlips(http, claimed, "o2", "the agent restart");

            near = new JsonObject(AgentHttp.text(AgentHttp.ok(http.get("/v1/stats"))))
                    .getJsonObject("store")
                    .getJsonObject("near_cache");
            assertEquals(0L, near.getLong("hits"), "answers came from Redis, not the near-cache: " + near);

            List<Item> fresh = items("second-agent", 0, 1000, "o3");
            List<String> freshVerdicts = http.claim(RedisTier.NS, fresh);
            RedisTier.assertNoFalseDuplicate(fresh, freshVerdicts);
            assertEquals(Collections.nCopies(1000, "new"), freshVerdicts);
        }
    }
}
