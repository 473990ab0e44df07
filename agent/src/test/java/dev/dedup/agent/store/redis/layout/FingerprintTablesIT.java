package dev.dedup.agent.store.redis.layout;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dedup.agent.config.RedisOptions;
import dev.dedup.agent.store.ClaimPolicy;
import dev.dedup.agent.store.EventClocks;
import dev.dedup.agent.store.redis.access.Housekeeping;
import dev.dedup.agent.store.redis.access.RedisKeys;
import dev.dedup.agent.store.redis.access.RedisPort;
import dev.dedup.agent.store.redis.access.RedisPort.Script;
import dev.dedup.agent.store.redis.access.connections.LettuceRedis;
import dev.dedup.agent.store.redis.topology.Routing;
import dev.dedup.agent.store.redis.topology.ShardLists;
import dev.dedup.agent.store.redis.topology.Topology;
import dev.dedup.agent.store.redis.topology.TopologyStart;
import dev.dedup.agent.testing.FakeClock;
import dev.dedup.agent.testing.RedisAcl;
import dev.dedup.agent.testing.RedisServer;
import dev.dedup.codec.Batch;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The fingerprint tables on a real redis-server, with a fake clock: a table splits its buckets as claims arrive
 * (alone, and while another agent splits it too) and forgets no claim doing so, and ended claims are swept out
 * so that it merges back. The agents log in as the user the shipped tier gives them ({@link RedisAcl#AGENT}), so
 * that a split, merge or sweep that needs a command the ACL does not grant fails here; after each test the server's
 * {@code ACL LOG} must be empty.
 */
class FingerprintTablesIT {

    private static final long EPOCH = 1_767_225_600_000L; // 2026-01-01T00:00:00Z
    private static final ClaimPolicy HOUR =
            ClaimPolicy.window(Duration.ofHours(1).toMillis());
    private static final ClaimPolicy DAY =
            ClaimPolicy.window(Duration.ofHours(24).toMillis());

    private static final String PASSWORD = "tables-Pass-5d1c";

    @TempDir
    Path dir;

    private final FakeClock clock = new FakeClock(EPOCH);
    private RedisServer redis;
    private final List<AutoCloseable> closing = new ArrayList<>();
    /** Each agent's connection, by its layout. */
    private final Map<FingerprintTables, RedisPort> ports = new IdentityHashMap<>();

    @BeforeEach
    void start() throws Exception {
        List<String> users = new ArrayList<>(RedisAcl.agentOnly(PASSWORD, RedisServer.Binary.REDIS));
        users.addAll(List.of("--user", "admin", "on", ">" + PASSWORD, "~*", "&*", "+@all"));
        redis = RedisServer.start(dir.resolve("redis"), users.toArray(String[]::new))
                .login("admin", PASSWORD);
    }

    @AfterEach
    void stop() throws Exception {
        try {
            String refused = redis.command("ACL", "LOG");
            assertTrue(refused.startsWith("*0"), "the ACL refused the agent: " + refused);
        } finally {
            for (int i = closing.size() - 1; i >= 0; i--) {
                closing.get(i).close();
            }
            redis.close();
        }
    }

    /** An agent's fingerprint layout on the shard: its own connection, topology and tables. */
    private FingerprintTables agent() {
        RedisOptions options = RedisOptions.builder(List.of("redis://dedup:" + PASSWORD + "@127.0.0.1:" + redis.port()))
                .timeout(Duration.ofSeconds(5))
                .build();
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor();
        closing.add(scheduler::shutdownNow);
        Housekeeping housekeeping = new Housekeeping(clock, System::nanoTime, scheduler);
        LettuceRedis port = LettuceRedis.connect(
                options,
                registry,
                List.of(Script.CLAIMS, Script.TABLE, Script.SWEEP, Script.TABLES),
                null,
                housekeeping);
        closing.add(port);
        Topology topology = TopologyStart.agreeOrRefuse(
                port, new RedisKeys("dd"), ShardLists.of(options), false, housekeeping, registry);
        closing.add(topology);
        RedisPort guarded = topology.guarded();
        FingerprintTables layout =
                new FingerprintTables(guarded, new RedisKeys("dd"), registry, housekeeping, new EventClocks());
        ports.put(layout, guarded);
        return layout;
    }

    /** A sweep of what is due now, waited for: what it dropped, or its failure. */
    private static long sweep(RedisSweeper sweeper) {
        return sweeper.sweepDue().toCompletableFuture().join();
    }

    private RedisSweeper sweeper(FingerprintTables layout) {
        RedisSweeper sweeper = new RedisSweeper(
                layout, ports.get(layout), new RedisKeys("dd"), clock, Executors.newSingleThreadScheduledExecutor());
        closing.add(sweeper);
        return sweeper;
    }

    @Test
    void aTableSplitsAsClaimsArrive_andForgetsNoClaim() throws Exception {
        FingerprintTables layout = agent();
        long memoryBefore = usedMemory();
        int ids = 200_000;
        for (int from = 0; from < ids; from += 5_000) {
            assertAll(0, claim(layout, batch("a", from, from + 5_000, "w1"), DAY), "fresh ids");
        }
        FingerprintTable.State state = settled(layout, DAY);
        long buckets = state.buckets(layout.baseBits());
        assertEquals(ids, state.claims());
        assertTrue(
                buckets >= ids / FingerprintTable.SPLIT_ABOVE && buckets <= ids / 24,
                "200,000 claims in " + buckets + " buckets");
        assertEquals(buckets, bucketKeys().size(), "every bucket holds claims, and no key is anything else's");
        double perClaim = (usedMemory() - memoryBefore) / (double) ids;
        assertTrue(perClaim < 24, "Redis memory a claim: " + perClaim + " bytes");
        for (int from = 0; from < ids; from += 5_000) {
            assertAll(2, claim(layout, batch("a", from, from + 5_000, "w2"), DAY), "copies by another owner");
            assertAll(1, claim(layout, batch("a", from, from + 5_000, "w1"), DAY), "the same owner again");
        }
    }

    @Test
    void twoAgentsSplittingOneTable_decideEveryIdRight() throws Exception {
        FingerprintTables one = agent();
        FingerprintTables two = agent();
        List<CompletableFuture<byte[]>> firsts = new ArrayList<>();
        for (int from = 0; from < 200_000; from += 2_000) {
            // The same ids from both agents at once: exactly one of each pair is new.
            CompletableFuture<byte[]> a = claimAsync(one, batch("b", from, from + 2_000, "w1"), DAY);
            CompletableFuture<byte[]> b = claimAsync(two, batch("b", from, from + 2_000, "w2"), DAY);
            byte[] x = a.join();
            byte[] y = b.join();
            for (int i = 0; i < x.length; i++) {
                assertTrue(
                        (x[i] == 0 && y[i] == 2) || (x[i] == 2 && y[i] == 0),
                        "b-" + (from + i) + " answered " + x[i] + " and " + y[i]);
            }
        }
        FingerprintTable.State state = settled(one, DAY);
        assertEquals(200_000, state.claims());
        assertAll(2, claimInBatches(two, "b", 200_000, "w3", DAY), "copies after the splits");
    }

    @Test
    void endedClaimsAreSweptOut_andTheTableMergesBack() throws Exception {
        FingerprintTables layout = agent();
        RedisSweeper sweeper = sweeper(layout);
        claimInBatches(layout, "short", 100_000, "w1", HOUR);
        claim(layout, batch("long", 0, 5_000, "w1"), DAY);
        FingerprintTable.State grown = settled(layout, HOUR);
        assertTrue(grown.buckets(layout.baseBits()) > 2000, grown.toString());

        clock.advance(Duration.ofHours(2)); // the hour-long claims have ended
        long period = RedisSweeper.periodSeconds(HOUR.windowMillis());
        for (long t = 0; t <= 2 * period; t += 5) {
            sweep(sweeper); // merges drop ended claims too, as they meet them
            clock.advance(Duration.ofSeconds(5));
        }
        FingerprintTable.State shrunk = settled(layout, HOUR);
        assertEquals(0, shrunk.claims());
        assertEquals(1L << layout.baseBits(), shrunk.buckets(layout.baseBits()), "merged back to its base");
        assertEquals(5_000, settled(layout, DAY).claims(), "the day-long table keeps its claims");
        assertAll(0, claimInBatches(layout, "short", 100_000, "w2", HOUR), "ended claims are new again");
        assertAll(2, claim(layout, batch("long", 0, 5_000, "w2"), DAY), "live claims are still held");
    }

    @Test
    void aTableOfEventTimes_keepsClaimsUntilItsClockIsAWindowPastTheirEnd_thenSweepsThem() throws Exception {
        FingerprintTables layout = agent();
        RedisSweeper sweeper = sweeper(layout);
        String table = FingerprintTable.eventTimeNameOf(HOUR, "ns");
        long t = EPOCH / 1000;
        assertAll(0, claim(layout, batch("old", 0, 4_000, "w1", t), HOUR), "claimed, ending at t + 1 h");
        clock.advance(Duration.ofHours(3));
        claim(layout, batch("newer", 0, 1, "w1", t + 3_660), HOUR);
        sweepFor(sweeper, HOUR);
        assertEquals(4_001, settled(layout, table).claims(), "the clock passed their end, but not by a window");
        assertAll(
                2,
                claim(layout, batch("old", 0, 4_000, "w2", t + 1_800), HOUR),
                "a reader half an hour behind the newest finds the claims of its time");

        claim(layout, batch("newest", 0, 1, "w1", t + 7_260), HOUR);
        sweepFor(sweeper, HOUR);
        assertEquals(2, settled(layout, table).claims(), "a window past their end: swept out");
        assertAll(0, claim(layout, batch("old", 0, 4_000, "w2", t + 3_700), HOUR), "copies sent later are new");
    }

    /** Sweeps every range of a table of {@code policy}'s window once: two periods, as the wall moves on. */
    private void sweepFor(RedisSweeper sweeper, ClaimPolicy policy) {
        long period = RedisSweeper.periodSeconds(policy.windowMillis());
        for (long s = 0; s <= 2 * period; s += 5) {
            sweep(sweeper);
            clock.advance(Duration.ofSeconds(5));
        }
    }

    @Test
    void aRangeIsSweptByTheFirstAgentToGetThere_theOthersSkipIt() throws Exception {
        FingerprintTables layout = agent();
        claim(layout, batch("short", 0, 4_000, "w1"), HOUR);
        settled(layout, HOUR);
        clock.advance(Duration.ofHours(2));
        RedisSweeper first = sweeper(layout);
        RedisSweeper second = sweeper(agent());

        long byFirst = sweep(first); // the range due now
        long bySecond = sweep(second); // the same range: its marker says it is done

        assertTrue(byFirst > 0 && byFirst < 4_000, "one range of 1,024 buckets' 16: " + byFirst);
        assertEquals(0, bySecond, "the second agent swept nothing");
    }

    @Test
    void aShardThatLostItsTopologyRecord_isNotSwept_untilItHoldsItAgain() throws Exception {
        FingerprintTables layout = agent();
        claim(layout, batch("short", 0, 4_000, "w1"), HOUR);
        settled(layout, HOUR);
        clock.advance(Duration.ofHours(2)); // every claim has ended: a sweep would drop them
        Object record = redis.call("GET", "dd:topology");
        redis.call("DEL", "dd:topology"); // as a shard replaced by another holding these keys would look
        Map<String, String> before = contents();
        RedisSweeper sweeper = sweeper(layout);

        RuntimeException refused = assertThrows(RuntimeException.class, () -> sweep(sweeper));
        assertTrue(String.valueOf(refused.getMessage()).contains("topology record"), refused.toString());
        assertEquals(before, contents(), "no bucket, state or sweep marker written");

        redis.call("FLUSHALL"); // an empty shard in its place
        assertThrows(RuntimeException.class, () -> sweep(sweeper));
        assertEquals(List.of(), redis.keys(), "an empty shard stays empty");

        redis.call(
                "SET".getBytes(StandardCharsets.US_ASCII), "dd:topology".getBytes(StandardCharsets.US_ASCII), (byte[])
                        record);
        claim(layout, batch("short", 0, 4_000, "w1"), HOUR);
        clock.advance(Duration.ofHours(2));
        assertTrue(sweep(sweeper) > 0, "with its record back, the shard is swept");
        assertArrayEquals((byte[]) record, (byte[]) redis.call("GET", "dd:topology"), "and its record kept as it was");
    }

    /** Every key of the shard with its value (a hash as its fields), to compare before and after. */
    private Map<String, String> contents() throws Exception {
        Map<String, String> all = new java.util.TreeMap<>();
        for (byte[] key : redis.keys()) {
            String name = java.util.HexFormat.of().formatHex(key);
            String read = switch (redis.type(key)) {
                case "hash" -> "HGETALL";
                case "set" -> "SMEMBERS";
                default -> "GET";
            };
            String value = describe(redis.call(read.getBytes(StandardCharsets.US_ASCII), key));
            all.put(name, read.equals("SMEMBERS") ? sorted(value) : value);
        }
        return all;
    }

    private static String sorted(String members) {
        return java.util.Arrays.stream(members.replaceAll("[\\[\\] ]", "").split(","))
                .sorted()
                .toList()
                .toString();
    }

    private static String describe(Object value) {
        if (value instanceof byte[] b) {
            return java.util.HexFormat.of().formatHex(b);
        }
        if (value instanceof List<?> l) {
            return l.stream().map(FingerprintTablesIT::describe).toList().toString();
        }
        return String.valueOf(value);
    }

    private void assertAll(int expected, byte[] verdicts, String what) {
        for (int i = 0; i < verdicts.length; i++) {
            assertEquals(expected, verdicts[i], what + ": item " + i);
        }
    }

    /** The table's state once no split or merge is due. */
    private FingerprintTable.State settled(FingerprintTables layout, ClaimPolicy policy) throws InterruptedException {
        return settled(layout, FingerprintTable.nameOf(policy));
    }

    /** The state of table {@code name} once no split or merge is due. */
    private FingerprintTable.State settled(FingerprintTables layout, String name) throws InterruptedException {
        FingerprintTable table = layout.table(name);
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (System.nanoTime() < deadline) {
            FingerprintTable.State s = layout.refresh(table, 0, clock.getAsLong())
                    .toCompletableFuture()
                    .join();
            if (s.due(layout.baseBits()) == null && !table.resizing(0)) {
                return s;
            }
            Thread.sleep(20);
        }
        throw new AssertionError("the table kept resizing: " + table.state(0));
    }

    private byte[] claim(FingerprintTables layout, Batch batch, ClaimPolicy policy) {
        return claimAsync(layout, batch, policy).join();
    }

    /** Ids {@code prefix-0} to {@code prefix-(count-1)} in batches of 10,000, an agent's largest (--max-batch). */
    private byte[] claimInBatches(
            FingerprintTables layout, String prefix, int count, String owner, ClaimPolicy policy) {
        byte[] verdicts = new byte[count];
        for (int from = 0; from < count; from += 10_000) {
            int to = Math.min(count, from + 10_000);
            System.arraycopy(claim(layout, batch(prefix, from, to, owner), policy), 0, verdicts, from, to - from);
        }
        return verdicts;
    }

    private CompletableFuture<byte[]> claimAsync(FingerprintTables layout, Batch batch, ClaimPolicy policy) {
        return layout.claim(Routing.single(1), batch, policy, clock.getAsLong()).toCompletableFuture();
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

    /** As {@link #batch(String, int, int, String)}, every item stamped with event second {@code second}. */
    private static Batch batch(String prefix, int from, int to, String owner, long second) {
        Batch.Builder b = Batch.builder(to - from);
        byte[] o = owner.getBytes(StandardCharsets.UTF_8);
        for (int i = from; i < to; i++) {
            byte[] id = (prefix + "-" + i).getBytes(StandardCharsets.UTF_8);
            b.add(id, 0, id.length, o, 0, o.length, second);
        }
        return b.build("ns");
    }

    /** The fingerprint buckets: keys {@code dd:b<table>:<4 bytes>}. */
    private List<byte[]> bucketKeys() throws Exception {
        return redis.keys().stream()
                .filter(k -> new String(k, StandardCharsets.ISO_8859_1).startsWith("dd:b"))
                .toList();
    }

    private long usedMemory() throws Exception {
        return redis.info("memory", "used_memory");
    }
}
