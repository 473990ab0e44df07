package dev.dedup.agent.store.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dedup.agent.config.RedisOptions;
import dev.dedup.agent.store.ClaimPolicy;
import dev.dedup.agent.testing.FakeClock;
import dev.dedup.agent.testing.RedisServer;
import dev.dedup.codec.Batch;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The hourly sweep of the fingerprint layout, on a real redis-server, with a fake clock: Redis memory
 * stays bounded only because ended claims are swept out of their buckets. Each test runs on shards of
 * layout v1 (stamped as a deployment started before v2) and of v2 (marked buckets, which the sweep unmarks
 * when their claims fit one level again).
 */
class RedisSweepIT {

    /** 1,024 buckets: 16 sweep ranges of 64. */
    private static final int BUCKETS = 1024;

    private static final long EPOCH = 1_767_225_600_000L; // 2026-01-01T00:00:00Z
    private static final ClaimPolicy HOUR =
            ClaimPolicy.window(Duration.ofHours(1).toMillis());
    private static final ClaimPolicy DAY =
            ClaimPolicy.window(Duration.ofHours(24).toMillis());

    @TempDir
    Path dir;

    private final FakeClock clock = new FakeClock(EPOCH);
    private RedisServer redis;
    private LettuceShards port;
    private Topology topology;
    private FingerprintBuckets layout;

    /** A shard of {@code layout} (1: its record stamped first, as a deployment of v1 left it) and the layout on it. */
    void start(int layout) throws Exception {
        redis = RedisServer.start(dir.resolve("redis"));
        if (layout == 1) {
            redis.call("SET", "dd:layout", "dedup-layout v1 buckets=" + BUCKETS + " level-entries=64 max-levels=8");
        }
        RedisOptions options = new RedisOptions(List.of(redis.uri()), Duration.ofSeconds(5), BUCKETS, 64, 8, "dd", 64);
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        port = new LettuceShards(options, registry, List.of(RedisScript.DEDUP, RedisScript.SWEEP));
        Routing routing = Routing.of(options);
        topology = Topology.agreeOrRefuse(port, new RedisKeys("dd"), routing, false, clock, registry);
        Moves moves = new Moves(
                topology.guarded(), routing, new RedisKeys("dd"), BUCKETS, 8, clock, Long.MIN_VALUE, registry);
        this.layout =
                new FingerprintBuckets(topology.guarded(), routing, moves, options, new RedisKeys("dd"), registry);
        this.layout.agreeOrRefuse("dd");
    }

    @AfterEach
    void stop() {
        if (topology != null) {
            topology.close();
        }
        if (port != null) {
            port.close();
        }
        if (redis != null) {
            redis.close();
        }
    }

    @ParameterizedTest(name = "layout v{0}")
    @ValueSource(ints = {1, 2})
    void aSweepAfterTheWindowRemovesEndedClaims_keepsLiveOnes_andRefreshesTheKeysItKeeps(int version) throws Exception {
        start(version);
        RedisSweeper sweeper = new RedisSweeper(layout, 3600, clock);
        sweeper.sweepDue(); // the first tick: only the slot due now, with nothing ended yet
        claim(batch("long", 0, 2000, "w1"), DAY);
        // A bucket that holds a day-long claim, which the sweep keeps (one of only hour-long claims goes).
        byte[] someKey = bucketKeys().get(0);
        claim(batch("short", 0, 2000, "w1"), HOUR);
        assertEquals(4000, entries());
        redis.call("PEXPIRE".getBytes(StandardCharsets.US_ASCII), someKey, "60000".getBytes(StandardCharsets.US_ASCII));

        clock.advance(Duration.ofHours(2)); // every range is due again; the hour-long claims have ended
        long removed = sweeper.sweepDue();

        assertEquals(2000, removed, "every hour-long claim, and nothing else");
        assertEquals(2000, entries());
        long ttl = (Long) redis.call("PTTL".getBytes(StandardCharsets.US_ASCII), someKey);
        assertTrue(ttl > FingerprintBuckets.KEY_TTL_MILLIS - 600_000, "the sweep refreshed the key's TTL: " + ttl);
        byte[] again = claim(batch("long", 0, 2000, "w2"), DAY);
        for (byte v : again) {
            assertEquals(2, v, "a live claim survives the sweep: its copies stay duplicate");
        }
        byte[] anew = claim(batch("short", 0, 2000, "w2"), HOUR);
        for (byte v : anew) {
            assertEquals(0, v, "an ended claim is new again");
        }
    }

    @ParameterizedTest(name = "layout v{0}")
    @ValueSource(ints = {1, 2})
    void aRangeIsSweptByTheFirstAgentToGetThere_theOthersSkipIt(int version) throws Exception {
        start(version);
        claim(batch("short", 0, 4000, "w1"), HOUR);
        clock.advance(Duration.ofHours(2));
        RedisSweeper first = new RedisSweeper(layout, 3600, clock);
        RedisSweeper second = new RedisSweeper(layout, 3600, clock);

        long byFirst = first.sweepDue(); // the one range due now
        long bySecond = second.sweepDue(); // the same range: its marker says it is done

        assertTrue(byFirst > 100 && byFirst < 600, "one range of 16 holds about 250 of 4,000: " + byFirst);
        assertEquals(0, bySecond);
        assertEquals(4000 - byFirst, entries(), "the second agent swept nothing");
        long slot = first.slotAt(clock.getAsLong());
        int range = (int) Math.floorMod(slot, (long) (BUCKETS / RedisSweeper.RANGE_BUCKETS));
        assertEquals(
                Long.toString(slot),
                new String((byte[]) redis.call("GET", "dd:sweep:" + range), StandardCharsets.US_ASCII));

        clock.advance(Duration.ofHours(1)); // a whole period later every range is due once more
        assertEquals(4000 - byFirst, second.sweepDue(), "the other ranges, swept once each");
        assertEquals(0, entries());
    }

    @ParameterizedTest(name = "layout v{0}")
    @ValueSource(ints = {1, 2})
    void aBucketWhoseLevelsOverflowedIsRebuiltIntoItsLiveClaims(int version) throws Exception {
        start(version);
        // 1,024 buckets of 64 entries a level: 150,000 claims spill into second and third levels.
        claim(batch("short", 0, 100_000, "w1"), HOUR);
        claim(batch("long", 0, 50_000, "w1"), DAY);
        long levelsBefore = bucketKeys().size();
        long marksBefore = marks();
        assertEquals(version == 1, marksBefore == 0, marksBefore + " buckets marked");
        clock.advance(Duration.ofHours(2));
        RedisSweeper sweeper = new RedisSweeper(layout, 3600, clock);
        sweeper.sweepDue();
        clock.advance(Duration.ofHours(1));
        sweeper.sweepDue();

        assertEquals(50_000, entries());
        assertTrue(
                bucketKeys().size() < levelsBefore,
                "levels emptied by the sweep are gone: " + bucketKeys().size() + " keys of " + levelsBefore);
        if (version == 2) {
            // ~49 live claims a bucket: those at 48 or fewer fit their first level with a quarter to spare
            long marksAfter = marks();
            assertTrue(marksAfter < marksBefore / 2, marksAfter + " of " + marksBefore + " buckets still marked");
        }
        byte[] again = claim(batch("long", 0, 50_000, "w2"), DAY);
        for (int i = 0; i < again.length; i++) {
            assertEquals(2, again[i], "long-" + i + " was kept through the rebuild");
        }
    }

    private byte[] claim(Batch batch, ClaimPolicy policy) {
        return layout.claim(batch, policy, clock.getAsLong())
                .toCompletableFuture()
                .join();
    }

    private static Batch batch(String prefix, int from, int to, String owner) {
        Batch.Builder b = Batch.builder(to - from);
        byte[] o = owner.getBytes(StandardCharsets.UTF_8);
        for (int i = from; i < to; i++) {
            byte[] id = (prefix + "-" + i).getBytes(StandardCharsets.UTF_8);
            b.add(id, 0, id.length, o, 0, o.length);
        }
        return b.build("ns");
    }

    /** The bucket levels: every key but the sweep markers and the topology record. */
    private List<byte[]> bucketKeys() throws Exception {
        return redis.keys().stream()
                .filter(k -> new String(k, StandardCharsets.ISO_8859_1).startsWith("dd{"))
                .toList();
    }

    /** Claims held, over every level of every bucket (a mark, layout v2, holds none). */
    private long entries() throws Exception {
        long n = 0;
        for (byte[] key : bucketKeys()) {
            if (redis.type(key).equals("hash")) {
                n += (Long) redis.call("HLEN".getBytes(StandardCharsets.US_ASCII), key);
            }
        }
        return n;
    }

    /** Buckets marked (layout v2): a string at the bucket's name. */
    private long marks() throws Exception {
        long n = 0;
        for (byte[] key : bucketKeys()) {
            if (redis.type(key).equals("string")) {
                n++;
            }
        }
        return n;
    }
}
