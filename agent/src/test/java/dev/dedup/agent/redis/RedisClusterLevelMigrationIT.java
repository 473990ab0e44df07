package dev.dedup.agent.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dedup.agent.Agent;
import dev.dedup.agent.testing.AgentHttp;
import dev.dedup.agent.testing.FakeClock;
import dev.dedup.agent.testing.RedisCluster;
import dev.dedup.agent.testing.RedisServer;
import dev.dedup.wire.Item;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A group's slot migrated by hand, key by key, while its buckets have grown past their first level (8 claims a
 * level): the level keys move in a {@code MIGRATE} of their own, after the rest of the slot or before it, as
 * {@code redis-cli --cluster reshard} may split them between batches. While the slot is split, every claimed
 * id is sent again by another owner and fresh ids are sent: each batch must be answered 503 or with the right
 * verdicts, never {@code new} for a claimed id (a level still on the other node read as empty) nor {@code
 * duplicate} for a fresh one. Once the slot has moved, every claimed id is still a duplicate, and the hourly
 * sweep empties the buckets of their ended claims. The near-cache is off: every answer is Redis's.
 */
class RedisClusterLevelMigrationIT {

    /** 64 buckets of 8 claims a level, 1,280 ids: about 20 claims a bucket, in levels 0, 1 and 2. */
    private static final RedisTier.Layout LAYOUT = new RedisTier.Layout(Duration.ofMillis(500), 64, 8, 8);

    private static final int IDS = 1280;
    private static final int BATCH = 128;
    /** Batches sent while a slot is split: small, so that many miss the split group and are answered. */
    private static final int PROBE = 32;

    @TempDir
    Path dir;

    /** What sending batches while a slot is split saw. */
    private record Probe(int answered, int failed, List<String> wrong) {}

    @Test
    void slotSplitBetweenLevelKeys_neverAnswersAClaimedIdNew_norAFreshIdDuplicate() throws Exception {
        FakeClock clock = new FakeClock(RedisTier.EPOCH);
        try (RedisCluster cluster = RedisCluster.start(dir.resolve("cluster"), 3);
                Agent agent = RedisTier.agentAt(dir, List.of(cluster.uri()), LAYOUT, 0, clock)) {
            AgentHttp http = new AgentHttp(agent.port());
            List<Item> claimed = RedisTier.items("claimed", 0, IDS, "p");
            for (int from = 0; from < IDS; from += BATCH) {
                List<Item> batch = claimed.subList(from, from + BATCH);
                assertEquals(Map.of("new", BATCH), RedisTier.tally(http.claim(RedisTier.NS, batch)), "first claims");
            }
            // Calls declare first levels only, and are sent again with every level when a bucket outgrew its first.
            assertTrue(
                    RedisTier.metric(http, "dedup_redis_calls_levels_declared_total", "") > 0,
                    "calls into buckets beyond their first level were sent again with every level declared");
            assertTrue(
                    RedisTier.metric(http, "dedup_redis_bucket_claims_read_total", "") > 0,
                    "the claims found in the buckets read are counted on a cluster too");
            List<Integer> slots = slotsWithLevels(cluster, 2);

            // The level keys last: level 0 and the topology record reach the target first.
            Probe last = migrateSplit(cluster, http, claimed, slots.get(0), true, "last");
            // The level keys first: they reach the target while level 0 is still on the source.
            Probe first = migrateSplit(cluster, http, claimed, slots.get(1), false, "first");

            System.out.printf("slot split with level keys migrated last: %s; first: %s%n", last, first);
            assertTrue(last.failed() > 0 && first.failed() > 0, "batches touching a split slot are answered 503");
            assertTrue(last.answered() > 0 && first.answered() > 0, "the others are answered");

            List<Item> again = RedisTier.withOwner(claimed, "r");
            assertEquals(
                    Map.of("duplicate", IDS),
                    RedisTier.tally(http.claim(RedisTier.NS, again)),
                    "every claimed id, once the slots have moved");

            // Past every window and the hour's sweep: the sweep, declaring every level, empties the buckets.
            RedisServer target = cluster.ownerOfSlot(slots.get(0));
            assertTrue(levelKeys(target, slots.get(0)) > 0);
            clock.advance(RedisTier.WINDOW.plusHours(2));
            RedisServer.await(Duration.ofSeconds(30), () -> {
                try {
                    return bucketKeys(target, slots.get(0)) == 0;
                } catch (Exception e) {
                    return false;
                }
            });
        }
    }

    /**
     * Opens the migration of {@code slot} to another master, moves its level keys after ({@code levelsLast}) or
     * before the others, probes while they are split, then moves the rest and closes the migration.
     */
    private static Probe migrateSplit(
            RedisCluster cluster, AgentHttp http, List<Item> claimed, int slot, boolean levelsLast, String name)
            throws Exception {
        RedisServer from = cluster.ownerOfSlot(slot);
        RedisServer to =
                cluster.masters().stream().filter(m -> m != from).findFirst().orElseThrow();
        List<byte[]> levels = new ArrayList<>();
        List<byte[]> others = new ArrayList<>();
        for (byte[] key : RedisCluster.keysInSlot(from, slot)) {
            (levelOf(key) > 0 ? levels : others).add(key);
        }
        assertFalse(levels.isEmpty(), "slot " + slot + " holds level keys");
        cluster.beginMigration(slot, from, to);
        RedisCluster.migrate(from, to, levelsLast ? others : levels);
        Probe probe = probe(http, claimed, name);
        assertEquals(List.of(), probe.wrong(), "wrong answers while the level keys were migrated " + name);
        RedisCluster.migrate(from, to, levelsLast ? levels : others);
        cluster.finishMigration(slot, to);
        assertEquals(List.of(), RedisCluster.keysInSlot(from, slot), "slot " + slot + " left its source");
        return probe;
    }

    /**
     * Every claimed id sent again by another owner ({@code duplicate} or 503), then fresh ids ({@code new} or
     * 503), in batches; what was wrong, by id and verdict.
     */
    private static Probe probe(AgentHttp http, List<Item> claimed, String name) {
        List<Item> copies = RedisTier.withOwner(claimed, "q-" + name);
        List<Item> fresh = RedisTier.items("fresh-" + name, 0, BATCH, "p");
        List<String> wrong = new ArrayList<>();
        int answered = 0;
        int failed = 0;
        List<List<Item>> batches = new ArrayList<>();
        for (int from = 0; from < IDS; from += PROBE) {
            batches.add(copies.subList(from, from + PROBE));
        }
        for (int from = 0; from < fresh.size(); from += PROBE) {
            batches.add(fresh.subList(from, from + PROBE));
        }
        for (List<Item> batch : batches) {
            HttpResponse<byte[]> r = RedisTier.postClaims(http, batch);
            if (r.statusCode() != 200) {
                assertEquals(503, r.statusCode(), AgentHttp.text(r));
                failed++;
                continue;
            }
            answered++;
            String expected = batch.get(0).id().startsWith("fresh") ? "new" : "duplicate";
            List<String> verdicts = AgentHttp.verdicts(r);
            for (int i = 0; i < verdicts.size(); i++) {
                if (!verdicts.get(i).equals(expected)) {
                    wrong.add(batch.get(i).id() + "=" + verdicts.get(i));
                }
            }
        }
        return new Probe(answered, failed, wrong);
    }

    /** The first {@code n} group slots (groups in order) whose master holds level keys beyond level 0. */
    private static List<Integer> slotsWithLevels(RedisCluster cluster, int n) throws Exception {
        List<Integer> slots = new ArrayList<>();
        for (int group = 0; group < 32 && slots.size() < n; group++) {
            int slot = Integer.reverse(group) >>> (32 - 14); // RedisKeys.groupSlot
            if (levelKeys(cluster.ownerOfSlot(slot), slot) > 0) {
                slots.add(slot);
            }
        }
        assertEquals(n, slots.size(), "groups whose buckets grew levels");
        return slots;
    }

    private static long levelKeys(RedisServer node, int slot) throws Exception {
        return RedisCluster.keysInSlot(node, slot).stream()
                .filter(k -> levelOf(k) > 0)
                .count();
    }

    private static long bucketKeys(RedisServer node, int slot) throws Exception {
        return RedisCluster.keysInSlot(node, slot).stream()
                .filter(k -> levelOf(k) >= 0)
                .count();
    }

    /**
     * A key's level: {@code <prefix>{<group tag>}} then 4 bytes of bucket is level 0, one more byte the level;
     * -1 for the group's other keys (topology record, sweep markers: a {@code :} after the tag).
     */
    private static int levelOf(byte[] key) {
        int close = 0;
        while (key[close] != '}') {
            close++;
        }
        int rest = key.length - close - 1;
        if (rest > 0 && key[close + 1] == ':') {
            return -1;
        }
        return rest == 5 ? key[key.length - 1] & 0xff : rest == 4 ? 0 : -1;
    }
}
