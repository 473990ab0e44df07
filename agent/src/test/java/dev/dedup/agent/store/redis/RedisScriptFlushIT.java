package dev.dedup.agent.store.redis;

import static dev.dedup.agent.store.redis.RedisTier.items;
import static dev.dedup.agent.store.redis.RedisTier.withOwner;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.dedup.agent.Agent;
import dev.dedup.agent.testing.AgentHttp;
import dev.dedup.agent.testing.FakeClock;
import dev.dedup.agent.testing.RedisServer;
import dev.dedup.wire.Item;
import java.io.InputStream;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code SCRIPT FLUSH} on a shard (what a restart, a failover or an operator does to the script cache):
 * the next batches get {@code NOSCRIPT}, the agent loads the script again and answers them as if nothing
 * happened. The near-cache is off, so every item goes to Redis.
 */
class RedisScriptFlushIT {

    @TempDir
    Path dir;

    /** The claim script's SHA: {@code guard.lua}, {@code answers.lua}, {@code records.lua}, {@code claims.lua}, sent as one. */
    private static String scriptSha() throws Exception {
        MessageDigest sha = MessageDigest.getInstance("SHA-1");
        for (String part : List.of("guard.lua", "answers.lua", "records.lua", "claims.lua")) {
            try (InputStream in =
                    RedisScriptFlushIT.class.getResourceAsStream("/dev/dedup/agent/store/redis/" + part)) {
                sha.update(in.readAllBytes());
            }
        }
        return HexFormat.of().formatHex(sha.digest());
    }

    private static long scriptLoaded(RedisServer redis, String sha) throws Exception {
        return (Long) ((List<?>) redis.call("SCRIPT", "EXISTS", sha)).get(0);
    }

    @Test
    void afterScriptFlush_nextBatchesReloadTheScriptAndAnswerRight() throws Exception {
        String sha = scriptSha();
        try (RedisServer redis = RedisServer.start(dir.resolve("redis"));
                Agent agent = RedisTier.agent(
                        dir,
                        List.of(redis),
                        RedisTier.Layout.defaults(Duration.ofSeconds(5)),
                        0,
                        new FakeClock(RedisTier.EPOCH))) {
            AgentHttp http = new AgentHttp(agent.port());
            assertEquals(1L, scriptLoaded(redis, sha), "the agent loads its script at start");
            List<Item> claimed = items("before", 0, 2000, "o1");
            assertEquals(Collections.nCopies(2000, "new"), http.claim(RedisTier.NS, claimed));

            assertEquals("OK", redis.call("SCRIPT", "FLUSH"));
            assertEquals(0L, scriptLoaded(redis, sha));

            // One batch mixing claimed ids (same and other owner) and fresh ones.
            List<Item> fresh = items("after", 0, 1000, "o3");
            List<Item> mixed = new ArrayList<>();
            mixed.addAll(claimed.subList(0, 1000));
            mixed.addAll(withOwner(claimed.subList(1000, 2000), "o2"));
            mixed.addAll(fresh);
            List<String> verdicts = http.claim(RedisTier.NS, mixed);
            assertEquals(Collections.nCopies(1000, "retry"), verdicts.subList(0, 1000));
            assertEquals(
                    List.of(), RedisTier.slippedDuplicates(mixed.subList(1000, 2000), verdicts.subList(1000, 2000)));
            RedisTier.assertNoFalseDuplicate(fresh, verdicts.subList(2000, 3000));
            assertEquals(Collections.nCopies(1000, "new"), verdicts.subList(2000, 3000));
            assertEquals(1L, scriptLoaded(redis, sha), "the agent loaded its script again");

            // Flushed again under concurrent batches: each gets NOSCRIPT or not, all succeed.
            assertEquals("OK", redis.call("SCRIPT", "FLUSH"));
            ExecutorService pool = Executors.newFixedThreadPool(4);
            try {
                List<Future<List<String>>> answers = new ArrayList<>();
                for (int w = 0; w < 4; w++) {
                    List<Item> batch = items("concurrent-" + w, 0, 500, "w" + w);
                    answers.add(pool.submit(() -> http.claim(RedisTier.NS, batch)));
                }
                for (Future<List<String>> f : answers) {
                    assertEquals(Collections.nCopies(500, "new"), f.get(30, TimeUnit.SECONDS));
                }
            } finally {
                pool.shutdownNow();
            }

            // Releases go through the same script.
            assertEquals("OK", redis.call("SCRIPT", "FLUSH"));
            assertEquals(Collections.nCopies(1000, true), http.release(RedisTier.NS, claimed.subList(0, 1000)));
            assertEquals(
                    Collections.nCopies(1000, "new"),
                    http.claim(RedisTier.NS, withOwner(claimed.subList(0, 1000), "o4")));
            assertEquals(0.0, RedisTier.metric(http, "dedup_store_errors_total", ""), "no batch failed");
        }
    }
}
