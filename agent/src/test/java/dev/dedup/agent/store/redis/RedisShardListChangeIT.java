package dev.dedup.agent.store.redis;

import static dev.dedup.agent.store.redis.RedisTier.items;
import static dev.dedup.agent.store.redis.RedisTier.record;
import static dev.dedup.agent.store.redis.RedisTier.withOwner;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dedup.agent.Agent;
import dev.dedup.agent.config.ShardTransition;
import dev.dedup.agent.config.WindowOptions;
import dev.dedup.agent.store.IncompatibleDeploymentException;
import dev.dedup.agent.testing.AgentHttp;
import dev.dedup.agent.testing.FakeClock;
import dev.dedup.agent.testing.RedisServer;
import dev.dedup.agent.testing.RedisShards;
import dev.dedup.client.DedupClient;
import dev.dedup.wire.Item;
import dev.dedup.wire.SequenceRange;
import io.vertx.core.json.JsonObject;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * A declared change of the shard list ({@code --redis-previous}, {@code --redis-cutover}), as docs/redis.md's
 * procedure makes it, on real redis-servers: claims made before the change and sent again afterwards by other
 * owners are never answered {@code new} (without the declaration, 24,984 of 100,000 were), fresh ids never
 * {@code duplicate}, an agent left on the old list is refused after the cut-over, and the previous list can
 * then be dropped.
 */
class RedisShardListChangeIT {

    /** Ids of the add-a-shard test. */
    private static final int IDS = Integer.getInteger("shardlist.ids", 100_000);

    private static final RedisTier.Layout LAYOUT = RedisTier.Layout.defaults(Duration.ofSeconds(5));
    private static final int CHUNK = 10_000;

    @TempDir
    Path dir;

    @RegisterExtension
    final RedisShards shards = new RedisShards(4, () -> dir);

    private final FakeClock clock = new FakeClock(RedisTier.EPOCH);

    private Agent agent(List<RedisServer> list, ShardTransition transition, WindowOptions windows) {
        return RedisTier.agent(dir, list, LAYOUT.withWindows(windows).withTransition(transition), 0, clock);
    }

    private Agent agent(List<RedisServer> list, ShardTransition transition) {
        return agent(list, transition, new WindowOptions(RedisTier.WINDOW, Map.of()));
    }

    private ShardTransition from(List<RedisServer> previous, Duration cutoverIn) {
        return new ShardTransition(
                previous.stream().map(RedisServer::uri).toList(),
                Instant.ofEpochMilli(clock.getAsLong()).plus(cutoverIn));
    }

    private static List<String> claim(Agent agent, List<Item> items) {
        AgentHttp http = new AgentHttp(agent.port());
        List<String> verdicts = new ArrayList<>(items.size());
        for (int from = 0; from < items.size(); from += CHUNK) {
            verdicts.addAll(http.claim(RedisTier.NS, items.subList(from, Math.min(items.size(), from + CHUNK))));
        }
        return verdicts;
    }

    private static void assertNoneSlipped(String when, Agent agent, List<Item> claimed, String owner) {
        List<Item> copies = withOwner(claimed, owner);
        List<String> slipped = RedisTier.slippedDuplicates(copies, claim(agent, copies));
        assertEquals(
                0,
                slipped.size(),
                when + ": copies answered new, e.g. " + slipped.subList(0, Math.min(5, slipped.size())));
    }

    private static DedupClient client(Agent agent) {
        return DedupClient.create(URI.create("http://127.0.0.1:" + agent.port()));
    }

    /** Keys of fingerprint buckets on a shard: {@code dd:b<table>:<4 bytes>}. */
    private static long bucketKeys(RedisServer shard) throws Exception {
        return shard.keys().stream()
                .filter(k -> k.length > 4 && k[0] == 'd' && k[1] == 'd' && k[2] == ':' && k[3] == 'b')
                .count();
    }

    private static Map<?, ?> transition(Agent agent) {
        String stats = AgentHttp.text(AgentHttp.ok(new AgentHttp(agent.port()).get("/v1/stats")));
        return new JsonObject(stats)
                .getJsonObject("store")
                .getJsonObject("transition")
                .getMap();
    }

    @Test
    void aShardAdded_forgetsNoClaim_refusesTheOldList_andThePreviousListCanBeDroppedAfterAWindow() throws Exception {
        List<RedisServer> three = shards.subList(0, 3);
        List<Item> claimed = items("a", 0, IDS, "o1");
        try (Agent first = agent(three, null)) {
            assertEquals(Map.of("new", IDS), RedisTier.tally(claim(first, claimed)));
        }
        ShardTransition change = from(three, Duration.ofMinutes(1));
        List<Item> lateClaims = items("b", 0, 10_000, "o1");
        List<Item> fresh = items("c", 0, 20_000, "o1");
        try (Agent old = agent(three, null);
                Agent changed = agent(shards, change)) {
            // Before the cut-over the fleet is mixed: both decide in the previous list.
            assertNoneSlipped("before the cut-over, on the new list", changed, claimed, "o2");
            assertEquals(Map.of("new", lateClaims.size()), RedisTier.tally(claim(old, lateClaims)));
            assertNoneSlipped("before the cut-over, claimed on the old list", changed, lateClaims, "o2");
            assertEquals(0, bucketKeys(shards.get(3)), "nothing is written on the new shard before the cut-over");

            clock.advance(Duration.ofSeconds(61));
            long cutStarted = System.nanoTime();
            assertNoneSlipped("after the cut-over", changed, claimed, "o3");
            double firstPassMillis = (System.nanoTime() - cutStarted) / 1e6;
            assertNoneSlipped("after the cut-over, claimed on the old list", changed, lateClaims, "o3");
            assertTrue(bucketKeys(shards.get(3)) > 0, "claims found in the previous list are copied to the new one");
            List<String> freshVerdicts = claim(changed, fresh);
            RedisTier.assertNoFalseDuplicate(fresh, freshVerdicts);
            assertEquals(Map.of("new", fresh.size()), RedisTier.tally(freshVerdicts));

            // The agent left on the old list cannot decide alone any more: 503, never a verdict.
            var refused = RedisTier.postClaims(new AgentHttp(old.port()), items("d", 0, 1_000, "o1"));
            assertEquals(503, refused.statusCode(), AgentHttp.text(refused));

            Map<?, ?> t = transition(changed);
            assertEquals(true, t.get("cut_over"), t.toString());
            assertEquals(false, t.get("previous_droppable"), "claims made before the cut-over live there: " + t);
            // A window after the cut-over every claim made before it has ended.
            clock.advance(RedisTier.WINDOW.minusSeconds(1).plusMillis(500));
            assertEquals(
                    true,
                    transition(changed).get("previous_droppable"),
                    transition(changed).toString());
            System.out.printf(
                    "shard-list change 3 -> 4: %d ids; the first pass of %d copies after the cut-over %.0f ms%n",
                    IDS + lateClaims.size(), IDS, firstPassMillis);
        }
        for (int i = 0; i < 4; i++) {
            assertTrue(
                    record(shards.get(i)).matches("dedup-topology v1 deployment=\\S+ epoch=2 shard=" + i + " of=4"),
                    record(shards.get(i)));
        }
        // The previous list dropped from the configuration: the plain 4-shard list starts and remembers what
        // was claimed after the cut-over (its window has half a second left).
        try (Agent later = agent(shards, null)) {
            assertNoneSlipped("with the previous list dropped", later, fresh, "o4");
        }
        IncompatibleDeploymentException e =
                assertThrows(IncompatibleDeploymentException.class, () -> agent(three, null));
        assertTrue(e.getMessage().contains("epoch 2"), e.getMessage());
    }

    @Test
    void aShardRemoved_forgetsNoClaimOrRange_andIsRetired() throws Exception {
        List<Item> claimed = items("a", 0, 40_000, "o1");
        List<String> streams =
                IntStream.range(0, 200).mapToObj(i -> "stream-" + i).toList();
        try (Agent first = agent(shards, null)) {
            claim(first, claimed);
            DedupClient client = client(first);
            for (String stream : streams) {
                client.commitRanges("orders", stream, List.of(SequenceRange.of(0, 999)));
            }
        }
        List<RedisServer> three = List.of(shards.get(0), shards.get(1), shards.get(3));
        try (Agent changed = agent(three, from(shards, Duration.ofSeconds(10)))) {
            clock.advance(Duration.ofSeconds(11));
            claim(changed, items("z", 0, 1, "o1")); // cuts over
            assertNoneSlipped("after removing shard 2", changed, claimed, "o2");
            DedupClient client = client(changed);
            for (String stream : streams) {
                assertEquals(
                        List.of(List.of(SequenceRange.of(0, 999))),
                        client.checkRanges("orders", stream, List.of(SequenceRange.of(0, 1999))),
                        stream);
                // Committed on its new shard, a stream's parts join those of the previous one.
                client.commitRanges("orders", stream, List.of(SequenceRange.of(1000, 1499)));
                assertEquals(
                        List.of(List.of(SequenceRange.of(0, 1499))),
                        client.checkRanges("orders", stream, List.of(SequenceRange.of(0, 1999))),
                        stream);
            }
            assertEquals(false, transition(changed).get("previous_droppable"));
            clock.advance(RedisTier.WINDOW);
            assertEquals(true, transition(changed).get("previous_droppable"));
        }
        assertTrue(record(shards.get(2)).endsWith("epoch=2 shard=retired of=3"), record(shards.get(2)));
        try (Agent later = agent(three, null)) {
            assertEquals(200, new AgentHttp(later.port()).get("/health/ready").statusCode());
        }
    }

    @Test
    void eventTimeClaims_liveInTheListOfTheirSecond() throws Exception {
        WindowOptions byEventTime = new WindowOptions(RedisTier.WINDOW, Map.of(), Map.of(RedisTier.NS, 1_000));
        long now = clock.getAsLong() / 1000;
        List<Item> old = IntStream.range(0, 30_000)
                .mapToObj(i -> new Item("e-" + i, "o1", now - 600 + i % 600))
                .toList();
        try (Agent first = agent(shards.subList(0, 3), null, byEventTime)) {
            assertEquals(Map.of("new", old.size()), RedisTier.tally(claim(first, old)));
        }
        try (Agent changed = agent(shards, from(shards.subList(0, 3), Duration.ofSeconds(30)), byEventTime)) {
            clock.advance(Duration.ofSeconds(31));
            long cut = clock.getAsLong() / 1000;
            List<Item> copies = old.stream()
                    .map(i -> new Item(i.id(), "o2", i.eventSecond()))
                    .toList();
            assertEquals(
                    0,
                    RedisTier.slippedDuplicates(copies, claim(changed, copies)).size());
            List<Item> later = IntStream.range(0, 20_000)
                    .mapToObj(i -> new Item("l-" + i, "o1", cut + i % 60))
                    .toList();
            List<String> verdicts = claim(changed, later);
            RedisTier.assertNoFalseDuplicate(later, verdicts);
            List<Item> laterCopies = later.stream()
                    .map(i -> new Item(i.id(), "o2", i.eventSecond()))
                    .toList();
            assertEquals(
                    0,
                    RedisTier.slippedDuplicates(laterCopies, claim(changed, laterCopies))
                            .size());
            assertTrue(
                    shards.get(3).keys().size() > 1,
                    "time buckets of seconds from the cut-over on reach the new shard");
            assertEquals(false, transition(changed).get("previous_droppable"), "event-time claims still live there");
            clock.advance(RedisTier.WINDOW);
            assertEquals(
                    false,
                    transition(changed).get("previous_droppable"),
                    "a window on, claims with event times are kept a window more");
            clock.advance(RedisTier.WINDOW);
            assertEquals(true, transition(changed).get("previous_droppable"), "two windows on");
        }
    }

    @Test
    void aPreviousListThatIsNotWhatTheShardsWereStartedWith_isRefused() {
        try (Agent first = agent(shards.subList(0, 3), null)) {
            claim(first, items("a", 0, 100, "o1"));
        }
        List<RedisServer> swapped = List.of(shards.get(1), shards.get(0), shards.get(2));
        IncompatibleDeploymentException e = assertThrows(
                IncompatibleDeploymentException.class, () -> agent(shards, from(swapped, Duration.ofMinutes(1))));
        assertTrue(e.getMessage().contains("neither its place in --redis-previous"), e.getMessage());
    }
}
