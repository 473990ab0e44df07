package dev.dedup.agent.redis;

import static dev.dedup.agent.redis.RedisTier.items;
import static dev.dedup.agent.redis.RedisTier.withOwner;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dedup.agent.Agent;
import dev.dedup.agent.testing.AgentHttp;
import dev.dedup.agent.testing.FakeClock;
import dev.dedup.agent.testing.RedisServer;
import dev.dedup.wire.Item;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Bucket levels in Redis: a bucket that outgrows {@code redis-level-entries} chains further levels, each
 * a hash that stays in the compact listpack encoding; nothing is forgotten while a bucket has levels to
 * spare, and when a bucket is full to {@code redis-max-levels} it forgets claims (counted) but never
 * answers {@code duplicate} for an id nobody claimed. The near-cache is off: answers come from Redis.
 */
class RedisListpackIT {

    private static final Duration TIMEOUT = Duration.ofSeconds(5);

    @TempDir
    Path dir;

    /** Bucket level keys: {@code dd{<4 bytes>}}, plus one byte from the second level on. */
    private static List<byte[]> levelKeys(RedisServer redis) throws Exception {
        List<byte[]> levels = new ArrayList<>();
        for (byte[] key : redis.keys()) {
            if (key.length >= 8 && key[0] == 'd' && key[1] == 'd' && key[2] == '{' && key[7] == '}') {
                levels.add(key);
            }
        }
        return levels;
    }

    /**
     * Stamps the shard's layout record as a deployment of layout v1 did (a first level's length read before
     * every claim, no marks), so that the agent keeps to it; layout 2 (marked buckets) stamps nothing: a fresh
     * shard gets it.
     */
    private static void stampLayout(RedisServer redis, int layout, int buckets, int levelEntries, int maxLevels)
            throws Exception {
        if (layout == 1) {
            redis.call(
                    "SET".getBytes(StandardCharsets.US_ASCII),
                    "dd:layout".getBytes(StandardCharsets.US_ASCII),
                    ("dedup-layout v1 buckets=" + buckets + " level-entries=" + levelEntries + " max-levels="
                                    + maxLevels)
                            .getBytes(StandardCharsets.US_ASCII));
        }
    }

    /**
     * Every level key of the shard that is not a listpack or holds more than {@code maxFields} fields, and
     * every mark (a string at a bucket's name, layout v2) that is not "dedup-levels" followed by its first
     * level.
     */
    private static Map<String, String> inspectKeys(RedisServer redis, int maxFields) throws Exception {
        Map<String, String> wrong = new TreeMap<>();
        for (byte[] key : levelKeys(redis)) {
            if (redis.type(key).equals("string")) {
                Object mark = redis.call("GET".getBytes(StandardCharsets.US_ASCII), key);
                byte[] first = java.util.Arrays.copyOf(key, key.length + 1);
                if (key.length != 8
                        || !"dedup-levels".equals(new String((byte[]) mark, StandardCharsets.US_ASCII))
                        || !redis.type(first).equals("hash")) {
                    wrong.put(HexFormat.of().formatHex(key), "a mark without its levels");
                }
                continue;
            }
            String encoding = new String(
                    (byte[]) redis.call(
                            "OBJECT".getBytes(StandardCharsets.US_ASCII),
                            "ENCODING".getBytes(StandardCharsets.US_ASCII),
                            key),
                    StandardCharsets.US_ASCII);
            long fields = (Long) redis.call("HLEN".getBytes(StandardCharsets.US_ASCII), key);
            if (!encoding.equals("listpack") || fields > maxFields) {
                wrong.put(HexFormat.of().formatHex(key), encoding + ", " + fields + " fields");
            }
        }
        return wrong;
    }

    @ParameterizedTest(name = "layout v{0}")
    @ValueSource(ints = {1, 2})
    void bucketsGrowingManyLevels_stayListpack_andForgetNothing(int layout) throws Exception {
        int levelEntries = 16;
        int buckets = 8;
        try (RedisServer redis = started(layout, buckets, levelEntries, 64);
                Agent agent = RedisTier.agent(
                        dir,
                        List.of(redis),
                        new RedisTier.Layout(TIMEOUT, buckets, levelEntries, 64),
                        0,
                        new FakeClock(RedisTier.EPOCH))) {
            AgentHttp http = new AgentHttp(agent.port());
            // ~375 claims per bucket: ~24 levels of 16, well below the 64 allowed.
            List<Item> claimed = new ArrayList<>();
            for (int batch = 0; batch < 6; batch++) {
                List<Item> items = items("lp-" + batch, 0, 500, "o" + batch);
                List<String> verdicts = http.claim(RedisTier.NS, items);
                RedisTier.assertNoFalseDuplicate(items, verdicts);
                assertEquals(Collections.nCopies(500, "new"), verdicts);
                claimed.addAll(items);
            }

            int levels = levelKeys(redis).size();
            assertTrue(
                    levels >= buckets * 10,
                    "buckets grew several levels: " + levels + " level keys for " + buckets + " buckets");
            assertEquals(Map.of(), inspectKeys(redis, levelEntries), "keys not listpack or over-full");

            assertEquals(Collections.nCopies(claimed.size(), "retry"), http.claim(RedisTier.NS, claimed));
            List<Item> copies = withOwner(claimed, "another-owner");
            assertEquals(
                    List.of(),
                    RedisTier.slippedDuplicates(copies, http.claim(RedisTier.NS, copies)),
                    "claims forgotten although no bucket reached redis-max-levels");
            assertEquals(0.0, RedisTier.metric(http, "dedup_redis_evictions_total", ""));
        }
    }

    /**
     * A server whose {@code hash-max-listpack-entries} is below {@code redis-level-entries}: the agent
     * clamps its levels to fit, so buckets still stay listpack.
     */
    @ParameterizedTest(name = "layout v{0}")
    @ValueSource(ints = {1, 2})
    void levelEntriesAboveTheServersListpackLimit_areClampedSoLevelsStayListpack(int layout) throws Exception {
        try (RedisServer redis = started(layout, 4, 30, 64, "--hash-max-listpack-entries", "32");
                Agent agent = RedisTier.agent(
                        dir,
                        List.of(redis),
                        new RedisTier.Layout(TIMEOUT, 4, 64, 64),
                        0,
                        new FakeClock(RedisTier.EPOCH))) {
            AgentHttp http = new AgentHttp(agent.port());
            assertEquals(layout == 1 ? 30 : 22, stats(http).getInteger("level_entries"), "32 - 2, less 8 for v2");
            List<Item> claimed = items("clamped", 0, 2000, "o");
            assertEquals(Collections.nCopies(2000, "new"), http.claim(RedisTier.NS, claimed));
            assertEquals(Map.of(), inspectKeys(redis, 30), "keys not listpack or over-full");
            assertEquals(Collections.nCopies(2000, "retry"), http.claim(RedisTier.NS, claimed));
        }
    }

    /**
     * What claim calls find in the buckets they read is counted: each bucket once per call, with the claims
     * its first level held then. Four buckets, so that every batch of 100 fresh ids reads all four: the first
     * finds them empty, the second finds the first's 100 claims, a batch of repeats finds all 200.
     */
    @Test
    void bucketsReadByClaims_andTheClaimsTheyHeld_areCounted() throws Exception {
        try (RedisServer redis = started(1, 4, 256, 8);
                Agent agent = RedisTier.agent(
                        dir,
                        List.of(redis),
                        new RedisTier.Layout(TIMEOUT, 4, 256, 8),
                        0,
                        new FakeClock(RedisTier.EPOCH))) {
            AgentHttp http = new AgentHttp(agent.port());
            List<Item> first = items("fill-a", 0, 100, "o");
            assertEquals(Collections.nCopies(100, "new"), http.claim(RedisTier.NS, first));
            assertEquals(4.0, RedisTier.metric(http, "dedup_redis_buckets_read_total", ""));
            assertEquals(0.0, RedisTier.metric(http, "dedup_redis_bucket_claims_read_total", ""));

            assertEquals(Collections.nCopies(100, "new"), http.claim(RedisTier.NS, items("fill-b", 0, 100, "o")));
            assertEquals(8.0, RedisTier.metric(http, "dedup_redis_buckets_read_total", ""));
            assertEquals(100.0, RedisTier.metric(http, "dedup_redis_bucket_claims_read_total", ""));

            assertEquals(Collections.nCopies(100, "retry"), http.claim(RedisTier.NS, first));
            assertEquals(12.0, RedisTier.metric(http, "dedup_redis_buckets_read_total", ""));
            assertEquals(300.0, RedisTier.metric(http, "dedup_redis_bucket_claims_read_total", ""));

            // Releases read no bucket for this count.
            http.release(RedisTier.NS, first.subList(0, 10));
            assertEquals(12.0, RedisTier.metric(http, "dedup_redis_buckets_read_total", ""));

            io.vertx.core.json.JsonObject shard = new io.vertx.core.json.JsonObject(
                            AgentHttp.text(AgentHttp.ok(http.get("/v1/stats"))))
                    .getJsonObject("store")
                    .getJsonArray("shards")
                    .getJsonObject(0);
            assertEquals(12L, shard.getLong("buckets_read"), shard.encode());
            assertEquals(25.0, shard.getDouble("bucket_claims_mean"), shard.encode());
        }
    }

    /** One bucket of two levels of 8: room for 16 claims. */
    private static final RedisTier.Layout TINY = new RedisTier.Layout(TIMEOUT, 1, 8, 2);

    /**
     * Claims 24 ids into room for 16, one a second (so that each expires a second after the one before):
     * every fresh id is answered {@code new}, never {@code duplicate}, and the 8 claims forgotten are counted
     * in {@code dedup_redis_evictions_total}.
     */
    @ParameterizedTest(name = "layout v{0}")
    @ValueSource(ints = {1, 2})
    void fullBucket_answersFreshIdsNew_andCountsTheClaimsItForgets(int layout) throws Exception {
        FakeClock clock = new FakeClock(RedisTier.EPOCH);
        try (RedisServer redis = started(layout, 1, 8, 2);
                Agent agent = RedisTier.agent(dir, List.of(redis), TINY, 0, clock)) {
            AgentHttp http = new AgentHttp(agent.port());
            List<Item> claimed = claimOneASecond(http, clock, 24);
            assertEquals(8.0, RedisTier.metric(http, "dedup_redis_evictions_total", ""));
            assertEquals(Map.of(), inspectKeys(redis, 8), "keys not listpack or over-full");

            // Exactly 16 of the 24 are still remembered; the other 8 answer new to another owner, never retry.
            // Newest first: a probe answered new claims the id and pushes another claim out, which must not
            // change what the probes after it see.
            List<Item> copies = new ArrayList<>(withOwner(claimed, "another-owner"));
            Collections.reverse(copies);
            List<String> slipped = RedisTier.slippedDuplicates(copies, http.claim(RedisTier.NS, copies));
            assertEquals(8, slipped.size(), "forgotten: " + slipped);

            // More fresh ids into the full bucket: new, never duplicate.
            List<Item> fresh = items("tiny-fresh", 0, 100, "f");
            List<String> verdicts = http.claim(RedisTier.NS, fresh);
            RedisTier.assertNoFalseDuplicate(fresh, verdicts);
            assertEquals(Collections.nCopies(100, "new"), verdicts);
        }
    }

    /**
     * When a full bucket must forget, it forgets its oldest claims (those that expire soonest), like the
     * embedded store's sets, and keeps the recent ones, which are the likeliest to be delivered again.
     */
    @ParameterizedTest(name = "layout v{0}")
    @ValueSource(ints = {1, 2})
    void fullBucket_forgetsItsOldestClaims(int layout) throws Exception {
        FakeClock clock = new FakeClock(RedisTier.EPOCH);
        try (RedisServer redis = started(layout, 1, 8, 2);
                Agent agent = RedisTier.agent(dir, List.of(redis), TINY, 0, clock)) {
            AgentHttp http = new AgentHttp(agent.port());
            List<Item> claimed = claimOneASecond(http, clock, 24);

            // The 16 newest must be remembered. Newest first: a probe answered new claims the id and may
            // push out an older one, which must not hide what the newer probes see.
            List<Item> newest = new ArrayList<>(withOwner(claimed.subList(8, 24), "probe"));
            Collections.reverse(newest);
            assertEquals(
                    List.of(),
                    RedisTier.slippedDuplicates(newest, http.claim(RedisTier.NS, newest)),
                    "recent claims forgotten while older ones were kept");
        }
    }

    /** A redis-server whose layout record is {@code layout}'s ({@link #stampLayout}). */
    private RedisServer started(int layout, int buckets, int levelEntries, int maxLevels, String... args)
            throws Exception {
        RedisServer redis = RedisServer.start(dir.resolve("redis"), args);
        stampLayout(redis, layout, buckets, levelEntries, maxLevels);
        return redis;
    }

    private static io.vertx.core.json.JsonObject stats(AgentHttp http) {
        return new io.vertx.core.json.JsonObject(AgentHttp.text(AgentHttp.ok(http.get("/v1/stats"))))
                .getJsonObject("store");
    }

    private static List<Item> claimOneASecond(AgentHttp http, FakeClock clock, int n) {
        List<Item> claimed = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            Item item = new Item("tiny-" + i, "o" + i);
            assertEquals(List.of("new"), http.claim(RedisTier.NS, List.of(item)), item.toString());
            claimed.add(item);
            clock.advance(Duration.ofSeconds(1));
        }
        return claimed;
    }
}
