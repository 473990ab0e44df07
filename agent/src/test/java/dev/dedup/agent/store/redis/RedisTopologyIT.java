package dev.dedup.agent.store.redis;

import static dev.dedup.agent.store.redis.RedisTier.items;
import static dev.dedup.agent.store.redis.RedisTier.record;
import static dev.dedup.agent.store.redis.RedisTier.withOwner;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dedup.agent.Agent;
import dev.dedup.agent.store.IncompatibleDeploymentException;
import dev.dedup.agent.testing.AgentHttp;
import dev.dedup.agent.testing.AgentProcess;
import dev.dedup.agent.testing.FakeClock;
import dev.dedup.agent.testing.RedisServer;
import dev.dedup.agent.testing.RedisShards;
import dev.dedup.wire.Item;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The shards record the topology they were started in; an agent whose shard list disagrees, without a
 * declared change, refuses to start rather than forget claims (a 4th shard appended moved about a quarter
 * of the buckets: 24,984 of 100,000 claims answered {@code new} before this check).
 */
class RedisTopologyIT {

    private static final RedisTier.Layout LAYOUT = RedisTier.Layout.defaults(Duration.ofSeconds(5));

    @TempDir
    Path dir;

    @RegisterExtension
    final RedisShards shards = new RedisShards(4, () -> dir);

    private Agent agent(List<RedisServer> list) {
        return RedisTier.agent(dir, list, LAYOUT, 0, new FakeClock(RedisTier.EPOCH));
    }

    @Test
    void aNewDeploymentIsStamped_andTheSameListStartsAgain_withEveryClaimKept() throws Exception {
        List<RedisServer> three = shards.subList(0, 3);
        List<Item> claimed = items("t", 0, 3000, "o1");
        try (Agent agent = agent(three)) {
            assertEquals(Collections.nCopies(3000, "new"), new AgentHttp(agent.port()).claim(RedisTier.NS, claimed));
        }
        for (int i = 0; i < 3; i++) {
            assertTrue(
                    record(three.get(i)).matches("dedup-topology v1 deployment=\\S+ epoch=1 shard=" + i + " of=3"),
                    record(three.get(i)));
        }
        try (Agent again = agent(three)) {
            List<Item> copies = withOwner(claimed, "o2");
            assertEquals(
                    List.of(),
                    RedisTier.slippedDuplicates(copies, new AgentHttp(again.port()).claim(RedisTier.NS, copies)));
        }
    }

    @Test
    void anAgentStartingWhileAnotherStampsTheShards_waitsForItsStamp_andAgrees() throws Exception {
        List<RedisServer> two = shards.subList(0, 2);
        // Another agent starting at the same moment has stamped the first shard and not yet the second.
        two.get(0).call("SET", "dd:topology", "dedup-topology v1 deployment=other epoch=1 shard=0 of=2");
        Thread stamper = new Thread(() -> {
            try {
                Thread.sleep(500);
                two.get(1).call("SET", "dd:topology", "dedup-topology v1 deployment=other epoch=1 shard=1 of=2");
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
        stamper.start();
        try (Agent agent = agent(two)) {
            assertEquals(List.of("new"), new AgentHttp(agent.port()).claim(RedisTier.NS, items("race", 0, 1, "o")));
        } finally {
            stamper.join();
        }
        assertEquals("dedup-topology v1 deployment=other epoch=1 shard=1 of=2", record(two.get(1)));
    }

    @Test
    void agentsStartingAtOnceOnNewShards_allStart_underOneDeployment() throws Exception {
        List<RedisServer> three = shards.subList(0, 3);
        for (int round = 0; round < 3; round++) {
            for (RedisServer shard : three) {
                shard.call("FLUSHALL");
            }
            List<java.util.concurrent.CompletableFuture<Agent>> starting = new ArrayList<>();
            for (int a = 0; a < 4; a++) {
                starting.add(java.util.concurrent.CompletableFuture.supplyAsync(() -> agent(three)));
            }
            List<Agent> started = new ArrayList<>();
            Throwable failed = null;
            for (var f : starting) {
                try {
                    started.add(f.join());
                } catch (java.util.concurrent.CompletionException e) {
                    failed = e.getCause();
                }
            }
            started.forEach(Agent::close);
            assertEquals(null, failed, "round " + round + ": an agent refused to start");
            String deployment = record(three.get(0)).split(" ")[2];
            for (RedisServer shard : three) {
                assertEquals(deployment, record(shard).split(" ")[2]);
            }
        }
    }

    @Test
    void aShardAppendedWithoutADeclaredChange_isRefused() {
        try (Agent agent = agent(shards.subList(0, 3))) {
            new AgentHttp(agent.port()).claim(RedisTier.NS, items("t", 0, 100, "o1"));
        }
        IncompatibleDeploymentException e = assertThrows(IncompatibleDeploymentException.class, () -> agent(shards));
        assertTrue(
                e.getMessage().contains("127.0.0.1:" + shards.get(0).port())
                        && e.getMessage().contains("shard 0 of 3")
                        && e.getMessage().contains("shard 0 of 4")
                        && e.getMessage().contains("without a declared transition"),
                e.getMessage());
    }

    @Test
    void aReorderedListIsRefused_evenWhileAnotherAgentRunsOnTheRightOne() {
        try (Agent first = agent(shards.subList(0, 3))) {
            List<RedisServer> swapped = List.of(shards.get(1), shards.get(0), shards.get(2));
            IncompatibleDeploymentException e =
                    assertThrows(IncompatibleDeploymentException.class, () -> agent(swapped));
            assertTrue(
                    e.getMessage().contains("is shard 1 of 3") && e.getMessage().contains("lists it as shard 0 of 3"),
                    e.getMessage());
            assertEquals(200, new AgentHttp(first.port()).get("/health/ready").statusCode(), "the first one serves on");
        }
    }

    @Test
    void aShardOfAnotherDeploymentIsRefused() {
        try (Agent a = agent(shards.subList(0, 2))) {
            // a and b: two deployments of two shards each
        }
        try (Agent b = agent(shards.subList(2, 4))) {
            // stamped apart
        }
        List<RedisServer> mixed = List.of(shards.get(0), shards.get(3));
        IncompatibleDeploymentException e = assertThrows(IncompatibleDeploymentException.class, () -> agent(mixed));
        assertTrue(e.getMessage().contains("mixes shards of two deployments"), e.getMessage());
    }

    @Test
    void shardsWrittenByAVersionWithoutRecords_areStampedAsTheyAre() throws Exception {
        // What an older agent left: claims and no record.
        shards.get(0).call("HSET", "dd{\u0000\u0000\u0000\u0001}", "1234567", "123456");
        try (Agent agent = agent(shards.subList(0, 2))) {
            assertEquals(200, new AgentHttp(agent.port()).get("/health/ready").statusCode());
        }
        assertTrue(record(shards.get(1)).endsWith("shard=1 of=2"), record(shards.get(1)));
    }

    @Test
    void theRealJarExits2_withOneLineSayingWhatDiffers() throws Exception {
        try (Agent agent = agent(shards.subList(0, 2))) {
            new AgentHttp(agent.port()).claim(RedisTier.NS, items("t", 0, 10, "o1"));
        }
        String reversed = shards.get(1).uri() + "," + shards.get(0).uri();
        try (AgentProcess p = AgentProcess.launch(
                dir,
                "--port",
                String.valueOf(AgentProcess.freePort()),
                "--redis",
                reversed,
                "--data-dir",
                dir.resolve("unused").toString())) {
            assertEquals(2, p.awaitExit(Duration.ofSeconds(30)), p.output());
            assertTrue(p.output().contains("changed without a declared transition"), p.output());
        }
    }
}
