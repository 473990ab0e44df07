package dev.dedup.agent.store.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dedup.agent.Agent;
import dev.dedup.agent.testing.FakeClock;
import dev.dedup.agent.testing.RedisServer;
import dev.dedup.agent.testing.RedisShards;
import dev.dedup.agent.testing.Shards;
import dev.dedup.client.DedupClient;
import dev.dedup.wire.SequenceRange;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Ranges of ordered streams in Redis: shared by every agent, O(1) per stream committed in order. */
class RedisRangesIT {

    private static final String KINESIS = "49590338271490256608559692538361571095921575989136588898";
    /** Commits of the memory test; {@code -Dranges.commits=1000000} for the figure in docs/performance.md. */
    private static final int COMMITS = Integer.getInteger("ranges.commits", 10_000);

    @TempDir
    Path dir;

    private static DedupClient client(Agent agent) {
        return DedupClient.create(URI.create("http://127.0.0.1:" + agent.port()));
    }

    private static SequenceRange batch(long b) {
        return SequenceRange.of(b * 100, b * 100 + 99);
    }

    @Test
    void twoAgentsCommittingOneStreamAtOnce_bothSeeEveryCommit_asOneRange(@Shards(3) RedisShards shards)
            throws Exception {
        FakeClock clock = new FakeClock(RedisTier.EPOCH);
        try (Agent a = RedisTier.agent(dir, shards, RedisTier.Layout.defaults(Duration.ofSeconds(5)), 1024, clock);
                Agent b = RedisTier.agent(dir, shards, RedisTier.Layout.defaults(Duration.ofSeconds(5)), 1024, clock)) {
            ExecutorService pool = Executors.newFixedThreadPool(4);
            try {
                List<Future<?>> running = new ArrayList<>();
                for (int w = 0; w < 4; w++) {
                    DedupClient client = client(w % 2 == 0 ? a : b);
                    int worker = w;
                    running.add(pool.submit(() -> {
                        for (long n = worker; n < 2000; n += 4) {
                            client.commitRanges("orders", "shard-7", List.of(batch(n)));
                        }
                        return null;
                    }));
                }
                for (Future<?> f : running) {
                    f.get();
                }
            } finally {
                pool.shutdownNow();
            }
            for (Agent agent : List.of(a, b)) {
                assertEquals(
                        List.of(List.of(SequenceRange.of(0, 199_999))),
                        client(agent).checkRanges("orders", "shard-7", List.of(SequenceRange.of(0, 1_000_000))));
            }
            long keys = 0;
            for (RedisServer shard : shards) {
                keys += rangeKeys(shard).size();
            }
            assertEquals(1, keys, "one key for the stream, on one shard");
        }
    }

    @Test
    void aStreamCommittedInOrderTakesTheSameMemoryAfterManyCommits_andExpiresWithItsWindow(
            @Shards(1) RedisShards shards) throws Exception {
        RedisServer redis = shards.get(0);
        try (Agent agent = RedisTier.agent(
                dir, shards, RedisTier.Layout.defaults(Duration.ofSeconds(5)), 1024, new FakeClock(RedisTier.EPOCH))) {
            DedupClient client = client(agent);
            java.math.BigInteger base = new java.math.BigInteger(KINESIS);
            long after100 = 0;
            for (int n = 0; n < COMMITS; n++) {
                java.math.BigInteger from = base.add(java.math.BigInteger.valueOf(n * 1000L));
                client.commitRanges(
                        "orders",
                        "shardId-000000000003",
                        List.of(new SequenceRange(from, from.add(java.math.BigInteger.valueOf(999)))));
                if (n == 99) {
                    after100 = memory(redis);
                }
            }
            long after = memory(redis);
            byte[] key = rangeKeys(redis).get(0);
            long ttl = (Long) redis.call("TTL".getBytes(StandardCharsets.US_ASCII), key);
            System.out.printf(
                    "ranges memory: %d bytes for one stream after 100 commits, %d after %,d commits%n",
                    after100, after, COMMITS);
            assertEquals(after100, after, "O(1): the same bytes after " + COMMITS + " commits as after 100");
            assertTrue(after < 300, "one interval of two 56-digit numbers: " + after + " bytes");
            assertTrue(Math.abs(ttl - RedisTier.WINDOW.toSeconds()) <= 2, "expires with the window: " + ttl);
        }
    }

    /** The keys of streams' ranges ({@code dd{r...}}), not the sweep's markers. */
    private static List<byte[]> rangeKeys(RedisServer redis) throws Exception {
        return redis.keys().stream()
                .filter(k -> new String(k, StandardCharsets.ISO_8859_1).startsWith("dd{r"))
                .toList();
    }

    /** {@code MEMORY USAGE} of the one stream's key. */
    private static long memory(RedisServer redis) throws Exception {
        List<byte[]> keys = rangeKeys(redis);
        assertEquals(1, keys.size());
        return (Long) redis.call(
                "MEMORY".getBytes(StandardCharsets.US_ASCII), "USAGE".getBytes(StandardCharsets.US_ASCII), keys.get(0));
    }
}
