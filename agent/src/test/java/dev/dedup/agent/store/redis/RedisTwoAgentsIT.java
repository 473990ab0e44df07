package dev.dedup.agent.store.redis;

import static dev.dedup.agent.store.redis.RedisTier.items;
import static dev.dedup.agent.store.redis.RedisTier.withOwner;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.dedup.agent.Agent;
import dev.dedup.agent.config.NearCacheOptions;
import dev.dedup.agent.testing.AgentHttp;
import dev.dedup.agent.testing.FakeClock;
import dev.dedup.agent.testing.RedisServer;
import dev.dedup.agent.testing.RedisShards;
import dev.dedup.agent.testing.Shards;
import dev.dedup.wire.Item;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Objects;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two in-process agents, each with its near-cache, on the same three shards: they answer as one store,
 * and a release through either one reaches the other's near-cache.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class RedisTwoAgentsIT {

    @TempDir
    static Path dir;

    private final FakeClock clock = new FakeClock(RedisTier.EPOCH);
    private Agent agentA;
    private Agent agentB;
    private AgentHttp a;
    private AgentHttp b;

    @BeforeAll
    void start(@Shards(3) RedisShards shards) {
        RedisTier.Layout layout = RedisTier.Layout.defaults(Duration.ofSeconds(5));
        agentA = RedisTier.agent(dir.resolve("a"), shards, layout, NearCacheOptions.DEFAULT_MAX_ENTRIES, clock);
        agentB = RedisTier.agent(dir.resolve("b"), shards, layout, NearCacheOptions.DEFAULT_MAX_ENTRIES, clock);
        a = new AgentHttp(agentA.port());
        b = new AgentHttp(agentB.port());
    }

    /** Runs before the shards stop. */
    @AfterAll
    void stop() {
        Stream.of(agentA, agentB).filter(Objects::nonNull).forEach(Agent::close);
    }

    @Test
    void idClaimedOnOneAgent_isDuplicateForAnotherOwnerAndRetryForTheSameOwner_onTheOther() {
        List<Item> claimed = items("cross", 0, 500, "o1");
        assertEquals(Collections.nCopies(500, "new"), a.claim(RedisTier.NS, claimed));

        assertEquals(Collections.nCopies(500, "duplicate"), b.claim(RedisTier.NS, withOwner(claimed, "o2")));
        assertEquals(Collections.nCopies(500, "retry"), b.claim(RedisTier.NS, claimed));
        // And back on A, answered from its near-cache: the same.
        assertEquals(Collections.nCopies(500, "duplicate"), a.claim(RedisTier.NS, withOwner(claimed, "o2")));
        assertEquals(Collections.nCopies(500, "retry"), a.claim(RedisTier.NS, claimed));
    }

    /**
     * B claims the ids (answered {@code new}, so B caches them); A releases them with B's owner; B must then
     * answer {@code new} to another owner: its cache entries were dropped through the release channel. The
     * pub/sub message may take a moment, so B is asked until it stops answering from a stale entry, within a
     * deadline; the first answer that is not {@code duplicate} must be {@code new} for every id.
     */
    @Test
    void releaseOnOneAgent_invalidatesTheOtherAgentsNearCache() throws Exception {
        List<Item> claimed = items("released", 0, 200, "ownerB");
        assertEquals(Collections.nCopies(200, "new"), b.claim(RedisTier.NS, claimed));
        assertEquals(
                Collections.nCopies(200, "duplicate"),
                b.claim(RedisTier.NS, withOwner(claimed, "probe")),
                "B holds the claims");

        assertEquals(Collections.nCopies(200, true), a.release(RedisTier.NS, claimed));

        List<Item> others = withOwner(claimed, "ownerC");
        List<String> verdicts = new ArrayList<>(Collections.nCopies(200, "duplicate"));
        RedisServer.await(Duration.ofSeconds(5), () -> {
            // Ask only for the ids still answered duplicate: a `new` claims the id for ownerC.
            List<Integer> pending = new ArrayList<>();
            for (int i = 0; i < 200; i++) {
                if (verdicts.get(i).equals("duplicate")) {
                    pending.add(i);
                }
            }
            List<String> got =
                    b.claim(RedisTier.NS, pending.stream().map(others::get).toList());
            for (int j = 0; j < pending.size(); j++) {
                verdicts.set(pending.get(j), got.get(j));
            }
            return !verdicts.contains("duplicate");
        });
        assertEquals(Collections.nCopies(200, "new"), verdicts);
        // Now ownerC holds them, everywhere.
        assertEquals(Collections.nCopies(200, "retry"), a.claim(RedisTier.NS, others));
        assertEquals(Collections.nCopies(200, "duplicate"), b.claim(RedisTier.NS, claimed));
    }

    /** Eight workers, four per agent, each its own owner, claim the same 20,000 ids in their own order. */
    @Test
    void workersRacingOnBothAgents_getExactlyOneNewPerId() throws Exception {
        int ids = 20_000;
        int workers = 8;
        int batch = 500;
        AtomicIntegerArray news = new AtomicIntegerArray(ids);
        AtomicIntegerArray others = new AtomicIntegerArray(ids);
        ExecutorService pool = Executors.newFixedThreadPool(workers);
        try {
            List<Future<?>> done = new ArrayList<>();
            for (int w = 0; w < workers; w++) {
                int worker = w;
                AgentHttp http = worker % 2 == 0 ? a : b;
                done.add(pool.submit(() -> {
                    List<Integer> order = new ArrayList<>();
                    for (int i = 0; i < ids; i++) {
                        order.add(i);
                    }
                    Collections.shuffle(order, new Random(worker));
                    for (int from = 0; from < ids; from += batch) {
                        List<Integer> slice = order.subList(from, Math.min(ids, from + batch));
                        List<String> got = http.claim(
                                RedisTier.NS,
                                slice.stream()
                                        .map(i -> new Item("race-" + i, "worker-" + worker))
                                        .toList());
                        for (int j = 0; j < slice.size(); j++) {
                            switch (got.get(j)) {
                                case "new" -> news.incrementAndGet(slice.get(j));
                                case "duplicate" -> others.incrementAndGet(slice.get(j));
                                default ->
                                    throw new AssertionError("race-" + slice.get(j) + " answered " + got.get(j)
                                            + " to worker-" + worker + ", who sent it once");
                            }
                        }
                    }
                    return null;
                }));
            }
            for (Future<?> f : done) {
                f.get(60, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
        }
        List<String> wrong = new ArrayList<>();
        for (int i = 0; i < ids; i++) {
            if (news.get(i) != 1 || others.get(i) != workers - 1) {
                wrong.add("race-" + i + ": " + news.get(i) + " new, " + others.get(i) + " duplicate");
            }
        }
        assertEquals(List.of(), wrong.size() > 20 ? wrong.subList(0, 20) : wrong);
    }
}
