package dev.dedup.agent.store.redis.access;

import static dev.dedup.agent.store.redis.access.StandaloneKeys.ascii;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.lettuce.core.cluster.SlotHash;
import java.nio.charset.StandardCharsets;
import java.util.HashSet;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Key names: standalone ones as deployments already hold them; on a Redis Cluster, one slot per group. */
class RedisKeysTest {

    @Test
    void standaloneKeysKeepTheirFormat_whateverTheShard() {
        StandaloneKeys.onEveryShard((keys, shard) -> {
            assertArrayEquals(new byte[] {'d', 'd', '{', 0, 1, 2, 3, '}'}, keys.hashTagged(shard, "", 0x010203, 4));
            assertArrayEquals(
                    new byte[] {'d', 'd', '{', 't', 0, 0, 0, 0, 0, 0, 0, 9, '}'}, keys.hashTagged(shard, "t", 9, 8));
            assertArrayEquals(ascii("dd:topology"), keys.named(shard, ":topology"));
        });
        assertArrayEquals(ascii("dd:released"), new RedisKeys("dd").releaseChannel());
    }

    @Test
    void slotIsRedisClusterCrc16_asLettuceComputesIt() {
        Random random = new Random(7);
        for (int i = 0; i < 10_000; i++) {
            byte[] key = new byte[1 + random.nextInt(20)];
            random.nextBytes(key);
            if (i % 3 == 0) {
                key[random.nextInt(key.length)] = '{';
            }
            if (i % 5 == 0) {
                key[random.nextInt(key.length)] = '}';
            }
            assertEquals(SlotHash.getSlot(key), RedisKeys.slot(key), "slot of key " + i);
        }
    }

    @Test
    void everyKeyOfAGroupIsInTheGroupsSlot_andGroupsHaveSlotsOfTheirOwn() {
        int groups = 64;
        RedisKeys keys = RedisKeys.clustered("dd", groups);
        Set<Integer> slots = new HashSet<>();
        for (int g = 0; g < groups; g++) {
            int slot = RedisKeys.groupSlot(g);
            assertTrue(slots.add(slot), "group " + g + " shares slot " + slot);
            assertEquals(slot, SlotHash.getSlot(keys.hashTagged(g, "t", -1L, 8)), "time bucket of group " + g);
            assertEquals(slot, SlotHash.getSlot(keys.named(g, ":x{y}")), "named key of group " + g);
            assertTrue(new String(keys.named(g, ":x"), StandardCharsets.US_ASCII).startsWith("dd{g" + g + "."));
        }
    }

    /**
     * Three masters given even ranges of slots ({@code redis-cli --cluster create}) hold even shares of groups,
     * whatever their count: 11, 11 and 10 of 32. Tags taken as they come do not: {@code dd:g0 .. dd:g31} fall
     * 12, 12 and 8 on the same masters, {@code ddg0 .. ddg63} 24, 19 and 21 (computed with this CRC16).
     */
    @Test
    void groupsAreSpreadEvenlyOverTheSlots() {
        for (int groups = 1; groups <= 1024; groups *= 2) {
            int[] perThird = new int[3];
            for (int g = 0; g < groups; g++) {
                perThird[Math.min(2, RedisKeys.groupSlot(g) * 3 / RedisKeys.SLOTS)]++;
            }
            int most = Math.max(perThird[0], Math.max(perThird[1], perThird[2]));
            int least = Math.min(perThird[0], Math.min(perThird[1], perThird[2]));
            assertTrue(most - least <= 1, groups + " groups over three thirds: " + java.util.Arrays.toString(perThird));
        }
    }
}
