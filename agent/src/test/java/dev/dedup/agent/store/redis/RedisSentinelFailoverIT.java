package dev.dedup.agent.store.redis;

import static dev.dedup.agent.store.redis.RedisTier.items;
import static dev.dedup.agent.store.redis.RedisTier.withOwner;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.dedup.agent.Agent;
import dev.dedup.agent.testing.AgentHttp;
import dev.dedup.agent.testing.FakeClock;
import dev.dedup.agent.testing.RedisSentinel;
import dev.dedup.agent.testing.RedisServer;
import dev.dedup.agent.testing.TcpProxy;
import dev.dedup.wire.Item;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Collections;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A shard given as a Sentinel-managed primary with one replica and three sentinels. The primary is
 * killed, or falls silent; the sentinels promote the replica; the agent follows it without a restart. Claims
 * replicated before (WAIT) are all remembered; fresh ids are never answered duplicate.
 */
class RedisSentinelFailoverIT {

    private static final String MASTER = "dedupm";

    @TempDir
    Path dir;

    /** The program of the primary, the replica and the sentinels. */
    protected RedisServer.Binary binary() {
        return RedisServer.Binary.REDIS;
    }

    /** What befalls the primary once the claims before it are replicated. */
    private interface Fault {
        void strike() throws Exception;
    }

    @Test
    void primaryKilled_agentFollowsThePromotedReplica_andForgetsNothingReplicated() throws Exception {
        try (RedisServer primary = RedisServer.start(binary(), dir.resolve("primary"))) {
            failOver(primary, primary.port(), "failover", primary::kill, Duration.ofSeconds(60));
        }
    }

    /**
     * The primary is reached, by the agent and by the sentinels, through a proxy that then holds back every byte (a
     * partition: the agent's connection stays open and silent, nothing refuses it). The sentinels promote the
     * replica; the agent, whose calls time out, asks them again and moves to it while its old connection is still
     * open.
     */
    @Test
    void primarySilent_agentAsksTheSentinelsAgain_andFollowsThePromotedReplica() throws Exception {
        try (RedisServer primary = RedisServer.start(binary(), dir.resolve("primary"));
                TcpProxy path = new TcpProxy(primary.port())) {
            try {
                failOver(primary, path.port(), "silence", () -> path.stall(true), Duration.ofSeconds(20));
            } finally {
                path.stall(false);
            }
        }
    }

    /**
     * Starts a replica of {@code primary} and three sentinels watching it at {@code primaryPort}, and an agent that
     * finds the primary through them; claims ids {@code before-<name>-*}, waits for the replica to hold them, lets
     * {@code fault} strike and the sentinels promote the replica, and waits up to {@code answering} for the agent to
     * answer again. Then every claim made before is remembered, no copy by another owner slips through, and no
     * fresh id ({@code after-<name>-*}) is answered duplicate.
     */
    private void failOver(RedisServer primary, int primaryPort, String name, Fault fault, Duration answering)
            throws Exception {
        try (RedisServer replica = RedisServer.start(
                        binary(), dir.resolve("replica"), "--replicaof", "127.0.0.1", String.valueOf(primary.port()));
                RedisSentinel s1 = RedisSentinel.start(binary(), dir.resolve("s1"), MASTER, primaryPort);
                RedisSentinel s2 = RedisSentinel.start(binary(), dir.resolve("s2"), MASTER, primaryPort);
                RedisSentinel s3 = RedisSentinel.start(binary(), dir.resolve("s3"), MASTER, primaryPort)) {
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
                List<Item> before = items("before-" + name, 0, 2000, "p");
                assertEquals(Collections.nCopies(2000, "new"), http.claim(RedisTier.NS, before));
                primary.awaitReplicated(replica, Duration.ofSeconds(10)); // replicated before the fault

                fault.strike();
                RedisServer.await(Duration.ofSeconds(60), () -> {
                    try {
                        return s1.masterPort(MASTER) == replica.port();
                    } catch (java.io.IOException e) {
                        return false;
                    }
                });
                RedisServer.await(answering, () -> {
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
                List<Item> fresh = items("after-" + name, 0, 1000, "p");
                RedisTier.assertNoFalseDuplicate(fresh, http.claim(RedisTier.NS, fresh));
            }
        }
    }
}
