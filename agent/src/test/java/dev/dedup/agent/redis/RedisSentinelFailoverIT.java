package dev.dedup.agent.redis;

import static dev.dedup.agent.redis.RedisTier.items;
import static dev.dedup.agent.redis.RedisTier.withOwner;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.dedup.agent.Agent;
import dev.dedup.agent.testing.AgentHttp;
import dev.dedup.agent.testing.FakeClock;
import dev.dedup.agent.testing.RedisSentinel;
import dev.dedup.agent.testing.RedisServer;
import dev.dedup.wire.Item;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Collections;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A shard given as a Sentinel-managed primary with one replica and three sentinels. The primary is
 * killed; the sentinels promote the replica; the agent follows it without a restart. Claims replicated
 * before the kill (WAIT) are all remembered; fresh ids are never answered duplicate.
 */
class RedisSentinelFailoverIT {

    private static final String MASTER = "dedupm";

    @TempDir
    Path dir;

    /** The program of the primary, the replica and the sentinels. */
    protected RedisServer.Binary binary() {
        return RedisServer.Binary.REDIS;
    }

    @Test
    void primaryKilled_agentFollowsThePromotedReplica_andForgetsNothingReplicated() throws Exception {
        try (RedisServer primary = RedisServer.start(binary(), dir.resolve("primary"));
                RedisServer replica = RedisServer.start(
                        binary(), dir.resolve("replica"), "--replicaof", "127.0.0.1", String.valueOf(primary.port()));
                RedisSentinel s1 = RedisSentinel.start(binary(), dir.resolve("s1"), MASTER, primary.port());
                RedisSentinel s2 = RedisSentinel.start(binary(), dir.resolve("s2"), MASTER, primary.port());
                RedisSentinel s3 = RedisSentinel.start(binary(), dir.resolve("s3"), MASTER, primary.port())) {
            RedisServer.await(Duration.ofSeconds(10), () -> {
                try {
                    return replica.command("INFO", "replication").contains("master_link_status:up");
                } catch (java.io.IOException e) {
                    return false;
                }
            });
            String uri = "redis-sentinel://127.0.0.1:" + s1.port() + ",127.0.0.1:" + s2.port() + ",127.0.0.1:"
                    + s3.port() + "#" + MASTER;
            try (Agent agent = RedisTier.agentAt(
                    dir,
                    List.of(uri),
                    RedisTier.Layout.defaults(Duration.ofMillis(500)),
                    0,
                    new FakeClock(RedisTier.EPOCH))) {
                AgentHttp http = new AgentHttp(agent.port());
                List<Item> before = items("before-failover", 0, 2000, "p");
                assertEquals(Collections.nCopies(2000, "new"), http.claim(RedisTier.NS, before));
                // Replicated before the kill: WAIT for the replica to acknowledge.
                assertEquals(":1", primary.command("WAIT", "1", "5000").trim());

                primary.kill();
                RedisServer.await(Duration.ofSeconds(60), () -> {
                    try {
                        return s1.masterPort(MASTER) == replica.port();
                    } catch (java.io.IOException e) {
                        return false;
                    }
                });
                RedisServer.await(Duration.ofSeconds(60), () -> {
                    try {
                        return RedisTier.postClaims(http, items("probe-" + System.nanoTime(), 0, 1, "x"))
                                        .statusCode()
                                == 200;
                    } catch (RuntimeException e) {
                        return false;
                    }
                });

                List<String> again = http.claim(RedisTier.NS, before);
                assertEquals(Collections.nCopies(2000, "retry"), again, () -> "tally " + RedisTier.tally(again));
                List<Item> copies = withOwner(before, "copy");
                assertEquals(List.of(), RedisTier.slippedDuplicates(copies, http.claim(RedisTier.NS, copies)));
                List<Item> fresh = items("after-failover", 0, 1000, "p");
                RedisTier.assertNoFalseDuplicate(fresh, http.claim(RedisTier.NS, fresh));
            }
        }
    }
}
