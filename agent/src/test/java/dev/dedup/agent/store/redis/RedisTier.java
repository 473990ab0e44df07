package dev.dedup.agent.store.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.dedup.agent.Agent;
import dev.dedup.agent.config.RedisOptions;
import dev.dedup.agent.config.ShardTransition;
import dev.dedup.agent.config.WindowOptions;
import dev.dedup.agent.testing.AgentHttp;
import dev.dedup.agent.testing.AgentUnderTest;
import dev.dedup.agent.testing.RedisServer;
import dev.dedup.wire.BatchEncoder;
import dev.dedup.wire.Item;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.LongSupplier;
import java.util.stream.IntStream;

/**
 * What the Redis-tier integration tests share: starting an in-process agent on shards the test started,
 * building batches, reading metrics, and the two fault questions every fault test asks.
 */
final class RedisTier {

    static final String NS = "it";
    static final Duration WINDOW = Duration.ofHours(24);
    /** 2026-01-01T00:00:00Z: claims' expiries come from this clock, Redis TTLs from its own. */
    static final long EPOCH = 1_767_225_600_000L;

    private RedisTier() {}

    /**
     * The settings a test varies besides its shards, near-cache and clock: the call timeout, the replicas that must
     * acknowledge every script call, the windows (and namespaces filed by event time), whether shards without a
     * topology record are stamped, and a declared change from a previous shard list (or null).
     */
    record Layout(
            Duration timeout,
            int waitReplicas,
            WindowOptions windows,
            boolean adoptEmptyShards,
            ShardTransition transition) {

        static Layout defaults(Duration timeout) {
            return new Layout(timeout, 0, new WindowOptions(WINDOW, Map.of()), false, null);
        }

        Layout withWaitReplicas(int replicas) {
            return new Layout(timeout, replicas, windows, adoptEmptyShards, transition);
        }

        Layout withWindows(WindowOptions options) {
            return new Layout(timeout, waitReplicas, options, adoptEmptyShards, transition);
        }

        Layout adoptingEmptyShards() {
            return new Layout(timeout, waitReplicas, windows, true, transition);
        }

        Layout withTransition(ShardTransition change) {
            return new Layout(timeout, waitReplicas, windows, adoptEmptyShards, change);
        }
    }

    static Agent agent(Path dir, List<RedisServer> shards, Layout layout, long nearCacheEntries, LongSupplier clock) {
        return agentAt(dir, shards.stream().map(RedisServer::uri).toList(), layout, nearCacheEntries, clock);
    }

    /** An agent on shards given by URI, e.g. reached through a proxy. */
    static Agent agentAt(Path dir, List<String> uris, Layout layout, long nearCacheEntries, LongSupplier clock) {
        RedisOptions redis = RedisOptions.builder(uris)
                .timeout(layout.timeout())
                .waitReplicas(layout.waitReplicas())
                .adoptEmptyShards(layout.adoptEmptyShards())
                .transition(layout.transition())
                .build();
        return Agent.start(
                AgentUnderTest.options(
                        AgentUnderTest.bulkHttp().build(),
                        dir.resolve("unused-embedded"),
                        layout.windows(),
                        redis,
                        nearCacheEntries),
                clock);
    }

    /** Ids {@code prefix-from .. prefix-(to-1)}, all with {@code owner}. */
    static List<Item> items(String prefix, int from, int to, String owner) {
        return IntStream.range(from, to)
                .mapToObj(i -> new Item(prefix + "-" + i, owner))
                .toList();
    }

    static List<Item> withOwner(List<Item> items, String owner) {
        return items.stream().map(i -> new Item(i.id(), owner)).toList();
    }

    static HttpResponse<byte[]> postClaims(AgentHttp http, List<Item> items) {
        return http.post("/v1/claims", AgentHttp.BINARY, BatchEncoder.binary(NS, items));
    }

    /** Verdict counts, e.g. {@code {new=3, retry=1}}, for messages that show the whole picture. */
    static Map<String, Integer> tally(List<String> verdicts) {
        Map<String, Integer> out = new TreeMap<>();
        verdicts.forEach(v -> out.merge(v, 1, Integer::sum));
        return out;
    }

    /**
     * Fault question 1: ids nobody claimed before must never be answered {@code duplicate}. {@code verdicts}
     * answer a batch of fresh ids.
     */
    static void assertNoFalseDuplicate(List<Item> fresh, List<String> verdicts) {
        List<String> wrong = new ArrayList<>();
        for (int i = 0; i < verdicts.size(); i++) {
            if (verdicts.get(i).equals("duplicate")) {
                wrong.add(fresh.get(i).id());
            }
        }
        assertEquals(List.of(), wrong, "unclaimed ids answered duplicate (false drops)");
    }

    /**
     * Fault question 2: which copies of claimed ids, sent by another owner, slipped through as {@code new}.
     * Returns their ids; a verdict other than {@code new} or {@code duplicate} fails the test.
     */
    static List<String> slippedDuplicates(List<Item> copies, List<String> verdicts) {
        List<String> slipped = new ArrayList<>();
        for (int i = 0; i < verdicts.size(); i++) {
            switch (verdicts.get(i)) {
                case "new" -> slipped.add(copies.get(i).id());
                case "duplicate" -> {}
                default ->
                    throw new AssertionError(
                            copies.get(i) + " answered " + verdicts.get(i) + " for a copy by another owner");
            }
        }
        return slipped;
    }

    /** Fault question 2 asked of {@code http}: copies of {@code claimed} by {@code owner} must all be duplicates. */
    static void assertNoCopySlips(AgentHttp http, List<Item> claimed, String owner, String after) {
        List<Item> copies = withOwner(claimed, owner);
        assertEquals(
                List.of(),
                slippedDuplicates(copies, http.claim(NS, copies)),
                "copies that slipped through as new after " + after);
    }

    /** The sum of every sample of {@code name} (Prometheus text) whose labels contain {@code labels}. */
    static double metric(AgentHttp http, String name, String labels) {
        String text = AgentHttp.text(AgentHttp.ok(http.get("/metrics")));
        double sum = 0;
        for (String line : text.split("\n")) {
            if (line.startsWith(name)
                    && line.length() > name.length()
                    && (line.charAt(name.length()) == '{' || line.charAt(name.length()) == ' ')
                    && line.contains(labels)) {
                sum += Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
            }
        }
        return sum;
    }

    static int status(AgentHttp http, String path) {
        try {
            return http.get(path).statusCode();
        } catch (RuntimeException e) {
            return -1;
        }
    }

    /**
     * After a fault under load: every id answered is sent again by another owner ({@code new} there is a duplicate
     * that slipped through), and every batch that failed is sent again by its own owner ({@code duplicate} there is
     * a message lost).
     */
    record Recheck(long ids, long slipped, long falseDrops) {}

    static Recheck recheck(AgentHttp http, List<List<Item>> answered, List<List<Item>> failed) {
        long slipped = 0;
        long ids = 0;
        for (List<Item> batch : new ArrayList<>(answered)) {
            List<Item> copies = withOwner(batch, "copy");
            slipped += slippedDuplicates(copies, http.claim(NS, copies)).size();
            ids += batch.size();
        }
        long falseDrops = 0;
        for (List<Item> batch : new ArrayList<>(failed)) {
            falseDrops +=
                    http.claim(NS, batch).stream().filter("duplicate"::equals).count();
        }
        return new Recheck(ids, slipped, falseDrops);
    }

    /** The topology record {@code shard} holds, or null. */
    static String record(RedisServer shard) throws Exception {
        Object held = shard.call("GET", "dd:topology");
        return held == null ? null : new String((byte[]) held, StandardCharsets.US_ASCII);
    }
}
