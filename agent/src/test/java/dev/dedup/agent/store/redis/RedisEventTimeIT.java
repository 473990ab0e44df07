package dev.dedup.agent.store.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dedup.agent.Agent;
import dev.dedup.agent.config.WindowOptions;
import dev.dedup.agent.store.IncompatibleDeploymentException;
import dev.dedup.agent.store.redis.layout.TimeBuckets;
import dev.dedup.agent.testing.AgentHttp;
import dev.dedup.agent.testing.FakeClock;
import dev.dedup.agent.testing.RedisServer;
import dev.dedup.agent.testing.RedisShards;
import dev.dedup.wire.Item;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.IntStream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Claims filed by event time ({@code timed.lua}) on a real redis-server: buckets that are strings of
 * 11-byte records and just grow when a second gets more claims than planned, tombstones on release, keys
 * that expire with their second, and two agents sharing the buckets. The near-cache is off unless said,
 * so answers come from Redis.
 */
class RedisEventTimeIT {

    private static final Duration TIMEOUT = Duration.ofSeconds(5);
    /** The fake clock's second: every test's messages are stamped around it. */
    private static final long NOW = RedisTier.EPOCH / 1000;
    /** One bucket a second: every message of a second shares it. */
    private static final WindowOptions ONE_BUCKET_A_SECOND =
            new WindowOptions(RedisTier.WINDOW, Map.of(), Map.of(RedisTier.NS, 100));

    @TempDir
    Path dir;

    @RegisterExtension
    final RedisShards shards = new RedisShards(1, () -> dir);

    /** The one shard every test's agents run on. */
    private RedisServer redis;

    @BeforeEach
    void pickTheShard() {
        redis = shards.get(0);
    }

    private Agent agent(RedisServer redis, long nearCache) {
        return agent(redis, nearCache, new FakeClock(RedisTier.EPOCH));
    }

    private Agent agent(RedisServer redis, long nearCache, FakeClock wall) {
        return RedisTier.agentAt(
                dir,
                List.of(redis.uri()),
                RedisTier.Layout.defaults(TIMEOUT).withWindows(ONE_BUCKET_A_SECOND),
                nearCache,
                wall);
    }

    private static List<Item> stamped(String prefix, int from, int to, String owner, long second) {
        return IntStream.range(from, to)
                .mapToObj(i -> new Item(prefix + "-" + i, owner, second))
                .toList();
    }

    private static List<Item> withOwner(List<Item> items, String owner) {
        return items.stream().map(i -> new Item(i.id(), owner, i.eventSecond())).toList();
    }

    /** Time buckets, {@code dd{t<8 bytes>}}: key (hex) to records, checking each is a string of whole records. */
    private static Map<String, Long> buckets(RedisServer redis) throws Exception {
        Map<String, Long> out = new TreeMap<>();
        for (byte[] key : redis.keys()) {
            if (key.length == 13 && key[2] == '{' && key[3] == 't' && key[12] == '}') {
                assertEquals("string", redis.type(key));
                long bytes = (Long) redis.call("STRLEN".getBytes(StandardCharsets.US_ASCII), key);
                assertEquals(0, bytes % 11, "whole 11-byte records");
                out.put(java.util.HexFormat.of().formatHex(key), bytes / 11);
            }
        }
        return out;
    }

    private static long total(Map<String, Long> buckets) {
        return buckets.values().stream().mapToLong(Long::longValue).sum();
    }

    @Test
    void aBurstAboveTheRate_makesItsBucketLonger_countedAsOverfull_andForgetsNothing() throws Exception {
        try (Agent agent = agent(redis, 0)) {
            AgentHttp http = new AgentHttp(agent.port());
            List<Item> claimed = new ArrayList<>();
            for (int batch = 0; batch < 3; batch++) {
                List<Item> items = stamped("burst-" + batch, 0, 300, "o" + batch, NOW);
                List<String> verdicts = http.claim(RedisTier.NS, items);
                assertEquals(
                        Collections.nCopies(300, "new"),
                        verdicts,
                        RedisTier.tally(verdicts).toString());
                claimed.addAll(items);
            }
            Map<String, Long> buckets = buckets(redis);
            assertEquals(1, buckets.size(), "one bucket a second: " + buckets);
            assertEquals(900L, total(buckets));
            assertEquals(
                    900 - TimeBuckets.OVERFULL_RECORDS,
                    RedisTier.metric(http, "dedup_redis_overfull_total", ""),
                    0.0,
                    "claims beyond the bucket's first " + TimeBuckets.OVERFULL_RECORDS);

            List<String> copies = http.claim(RedisTier.NS, withOwner(claimed.subList(0, 450), "other"));
            assertEquals(List.of(), RedisTier.slippedDuplicates(claimed.subList(0, 450), copies));
            List<String> again = http.claim(RedisTier.NS, claimed.subList(450, 900));
            assertEquals(Collections.nCopies(450, "retry"), again);
        }
    }

    @Test
    void bucketsOfOneSecond_holdAboutTheirShareOfItsClaims() throws Exception {
        WindowOptions tenBuckets = new WindowOptions(RedisTier.WINDOW, Map.of(), Map.of(RedisTier.NS, 1000));
        try (Agent agent = RedisTier.agentAt(
                dir,
                List.of(redis.uri()),
                RedisTier.Layout.defaults(TIMEOUT).withWindows(tenBuckets),
                0,
                new FakeClock(RedisTier.EPOCH))) {
            AgentHttp http = new AgentHttp(agent.port());
            List<Item> items = stamped("spread", 0, 2000, "o", NOW - 5);
            assertEquals(Collections.nCopies(2000, "new"), http.claim(RedisTier.NS, items));
            Map<String, Long> buckets = buckets(redis);
            assertEquals(10, buckets.size(), "1,000 ids a second in buckets of 100: " + buckets);
            assertEquals(2000L, total(buckets));
            assertTrue(buckets.values().stream().allMatch(n -> n > 120 && n < 280), buckets.toString());
            List<String> copies = http.claim(RedisTier.NS, withOwner(items, "other"));
            assertEquals(List.of(), RedisTier.slippedDuplicates(items, copies));
            assertEquals(0, RedisTier.metric(http, "dedup_redis_overfull_total", ""), 0.0);
        }
    }

    /** What Redis holds for {@code key} (hex), value and key, by {@code MEMORY USAGE}. */
    private static long memoryUsage(RedisServer redis, String key) throws Exception {
        return (Long) redis.call(
                "MEMORY".getBytes(StandardCharsets.US_ASCII),
                "USAGE".getBytes(StandardCharsets.US_ASCII),
                java.util.HexFormat.of().parseHex(key));
    }

    @Test
    void aBucketGrowsByAppends_andFromItsSettledFillIsWrittenWhole_exactlySized() throws Exception {
        try (Agent agent = agent(redis, 0)) {
            AgentHttp http = new AgentHttp(agent.port());
            List<Item> claimed = new ArrayList<>();
            int perBatch = 10;
            for (int batch = 0; batch * perBatch < 100; batch++) {
                List<Item> items = stamped("grow-" + batch, 0, perBatch, "o", NOW);
                assertEquals(Collections.nCopies(perBatch, "new"), http.claim(RedisTier.NS, items));
                claimed.addAll(items);
                Map<String, Long> buckets = buckets(redis);
                assertEquals(Map.of(buckets.keySet().iterator().next(), (long) claimed.size()), buckets);
                String key = buckets.keySet().iterator().next();
                long bytes = claimed.size() * 11L;
                // An exactly sized string: its allocation's size class (a step of at most a quarter), the
                // key and the object.
                long exact = bytes + bytes / 4 + 100;
                long held = memoryUsage(redis, key);
                if (claimed.size() == 70) {
                    // appended to since 10 records: Redis grew it greedily
                    assertTrue(held > exact, "70 records, appended: " + held + " bytes");
                } else if (claimed.size() >= 80) {
                    // written whole from 75 records on
                    assertTrue(held <= exact, claimed.size() + " records: " + held + " bytes");
                }
            }
            assertEquals(Collections.nCopies(100, "retry"), http.claim(RedisTier.NS, claimed));
            List<String> copies = http.claim(RedisTier.NS, withOwner(claimed, "other"));
            assertEquals(List.of(), RedisTier.slippedDuplicates(claimed, copies));
        }
    }

    @Test
    void aReleaseLeavesATombstone_thatTheNextClaimOfTheIdReuses() throws Exception {
        try (Agent agent = agent(redis, 0)) {
            AgentHttp http = new AgentHttp(agent.port());
            List<Item> items = stamped("tomb", 0, 48, "o", NOW);
            assertEquals(Collections.nCopies(48, "new"), http.claim(RedisTier.NS, items));
            List<Item> first = items.subList(0, 16);
            assertEquals(Collections.nCopies(16, true), http.release(RedisTier.NS, first));
            assertEquals(Collections.nCopies(16, false), http.release(RedisTier.NS, first), "released once");
            assertEquals(48L, total(buckets(redis)));

            List<String> later = http.claim(RedisTier.NS, withOwner(items.subList(16, 48), "other"));
            assertEquals(Collections.nCopies(32, "duplicate"), later);
            assertEquals(
                    Collections.nCopies(16, "new"),
                    http.claim(RedisTier.NS, withOwner(first, "next")),
                    "a released id is claimed anew, in its tombstone's place");
            assertEquals(48L, total(buckets(redis)));
            assertEquals(Collections.nCopies(16, "duplicate"), http.claim(RedisTier.NS, first));
        }
    }

    @Test
    void claimsEndOnTheEventClock_notTheWalls_andTheirBucketsAreDeletedTwoWindowsOn() throws Exception {
        FakeClock wall = new FakeClock(RedisTier.EPOCH);
        try (Agent agent = agent(redis, 0, wall)) {
            AgentHttp http = new AgentHttp(agent.port());
            long window = RedisTier.WINDOW.toSeconds();
            long second = NOW - 3600;

            List<Item> hourOld = stamped("hour-old", 0, 5, "o", second);
            assertEquals(Collections.nCopies(5, "new"), http.claim(RedisTier.NS, hourOld));
            long ttl = ttlOfOnlyKey(redis);
            byte[] hourOldKey = onlyBucketKey(redis);
            assertTrue(
                    Math.abs(ttl - 4 * window) <= 2,
                    "kept until the clock is two windows past its second, and two windows of wall time more: " + ttl);

            wall.advance(Duration.ofSeconds(2 * window)); // the job stalls: its clock stands at its second
            assertEquals(
                    Collections.nCopies(5, "duplicate"),
                    http.claim(RedisTier.NS, withOwner(hourOld, "stalled")),
                    "two windows of wall time later, the clock has not moved: the claims hold");

            List<Item> later = stamped("later", 0, 1, "o", second + 2 * window + 1);
            assertEquals(List.of("new"), http.claim(RedisTier.NS, later)); // the clock passes two windows on
            long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
            while ((Long) redis.call("EXISTS".getBytes(StandardCharsets.US_ASCII), hourOldKey) == 1
                    && System.nanoTime() < deadline) {
                Thread.sleep(100);
            }
            assertEquals(1, buckets(redis).size(), "the hour-old second's bucket is deleted, the later one's kept");
            assertEquals(
                    Collections.nCopies(5, "new"),
                    http.claim(RedisTier.NS, withOwner(hourOld, "late")),
                    "two windows behind the clock: the claims it could be a copy of are gone");
            String stats = AgentHttp.text(http.get("/v1/stats"));
            assertTrue(stats.replace(" ", "").contains("\"late\":5"), "the late items are counted: " + stats);
            assertTrue(
                    AgentHttp.text(http.get("/metrics")).contains("dedup_redis_timed_swept_total 1.0"),
                    "one bucket swept");
        }
    }

    @Test
    void aClockFarAhead_keepsItsClaimsNoLongerThanFromTheWall() throws Exception {
        try (Agent agent = agent(redis, 0)) {
            AgentHttp http = new AgentHttp(agent.port());
            long window = RedisTier.WINDOW.toSeconds();
            http.claim(RedisTier.NS, stamped("future", 0, 1, "o", NOW + 30 * 86_400));
            long ttl = ttlOfOnlyKey(redis);
            assertTrue(
                    Math.abs(ttl - 5 * window) <= 2,
                    "a stamp far ahead counts as a window ahead of the wall, whose clock it cannot move past: " + ttl);
        }
    }

    /** The key of the shard's one time bucket. */
    private static byte[] onlyBucketKey(RedisServer redis) throws Exception {
        List<byte[]> keys = redis.keys().stream()
                .filter(k -> k.length == 13 && k[2] == '{' && k[3] == 't')
                .toList();
        assertEquals(1, keys.size());
        return keys.get(0);
    }

    private static long ttlOfOnlyKey(RedisServer redis) throws Exception {
        List<byte[]> keys = redis.keys().stream()
                .filter(k -> k.length > 2 && k[2] == '{') // bucket keys, not the shard's topology record
                .toList();
        assertEquals(1, keys.size());
        return (Long) redis.call("TTL".getBytes(StandardCharsets.US_ASCII), keys.get(0));
    }

    @Test
    void twoAgentsShareTheBuckets_andAReleaseReachesTheOthersNearCache() throws Exception {
        try (Agent a = agent(redis, 4096);
                Agent b = agent(redis, 4096)) {
            AgentHttp httpA = new AgentHttp(a.port());
            AgentHttp httpB = new AgentHttp(b.port());
            List<Item> items = stamped("shared", 0, 200, "a", NOW - 1);
            assertEquals(Collections.nCopies(200, "new"), httpA.claim(RedisTier.NS, items));
            List<Item> copies = withOwner(items, "b");
            assertEquals(Collections.nCopies(200, "duplicate"), httpB.claim(RedisTier.NS, copies));
            assertEquals(Collections.nCopies(200, "duplicate"), httpB.claim(RedisTier.NS, copies), "from B's cache");

            assertEquals(Collections.nCopies(200, true), httpA.release(RedisTier.NS, items));
            RedisServer.await(
                    Duration.ofSeconds(5),
                    () -> httpB.claim(RedisTier.NS, copies.subList(0, 1)).equals(List.of("new")));
            assertEquals(Collections.nCopies(199, "new"), httpB.claim(RedisTier.NS, copies.subList(1, 200)));
            assertEquals(Collections.nCopies(200, "duplicate"), httpA.claim(RedisTier.NS, items));
        }
    }

    /**
     * The event rate decides an id's bucket within its second: an agent started with a rate that splits seconds
     * differently would answer copies of every id already claimed {@code new}. It is refused instead (named in
     * its configuration: at start; met through {@code *}: 503 for that namespace), and a rate that splits the
     * same way is accepted.
     */
    @Test
    void aChangedEventRate_isRefused_insteadOfForgetting() throws Exception {
        List<Item> claimed = stamped("r", 0, 500, "o1", NOW - 10);
        try (Agent first = agent(redis, 0)) {
            assertEquals(
                    500,
                    new AgentHttp(first.port()).claim(RedisTier.NS, claimed).size());
        }
        RedisTier.Layout layout = RedisTier.Layout.defaults(TIMEOUT);
        IncompatibleDeploymentException e = assertThrows(
                IncompatibleDeploymentException.class,
                () -> RedisTier.agentAt(
                        dir,
                        List.of(redis.uri()),
                        layout.withWindows(new WindowOptions(RedisTier.WINDOW, Map.of(), Map.of(RedisTier.NS, 1_000))),
                        0,
                        new FakeClock(RedisTier.EPOCH)));
        assertTrue(
                e.getMessage().contains("namespace " + RedisTier.NS + " is filed by event time in 1 buckets")
                        && e.getMessage().contains("makes 10"),
                e.getMessage());
        try (Agent wildcard = RedisTier.agentAt(
                dir,
                List.of(redis.uri()),
                layout.withWindows(new WindowOptions(RedisTier.WINDOW, Map.of(), Map.of("*", 1_000))),
                0,
                new FakeClock(RedisTier.EPOCH))) {
            var refused = RedisTier.postClaims(new AgentHttp(wildcard.port()), withOwner(claimed, "o2"));
            assertEquals(503, refused.statusCode(), AgentHttp.text(refused));
            assertTrue(AgentHttp.text(refused).contains("event rate"), AgentHttp.text(refused));
        }
        try (Agent same = RedisTier.agentAt(
                dir,
                List.of(redis.uri()),
                layout.withWindows(new WindowOptions(RedisTier.WINDOW, Map.of(), Map.of(RedisTier.NS, 60))),
                0,
                new FakeClock(RedisTier.EPOCH))) {
            List<String> verdicts = new AgentHttp(same.port()).claim(RedisTier.NS, withOwner(claimed, "o2"));
            assertEquals(java.util.Collections.nCopies(500, "duplicate"), verdicts, "1 bucket a second either way");
        }
    }
}
