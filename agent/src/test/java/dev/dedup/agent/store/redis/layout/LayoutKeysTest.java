package dev.dedup.agent.store.redis.layout;

import static dev.dedup.agent.store.redis.access.StandaloneKeys.ascii;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.dedup.agent.store.redis.access.RedisKeys;
import dev.dedup.agent.store.redis.access.StandaloneKeys;
import io.lettuce.core.cluster.SlotHash;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

/** The layout's key names: standalone ones as deployments already hold them; on a Redis Cluster, one slot a group. */
class LayoutKeysTest {

    @Test
    void standaloneKeysKeepTheirFormat_whateverTheShard() {
        StandaloneKeys.onEveryShard((keys, shard) -> {
            assertArrayEquals(ascii("dd:sweep:f60000:7"), RedisSweeper.marker(keys, shard, "f60000", 7));
            assertArrayEquals(ascii("dd:t:f60000"), FingerprintTable.stateKey(keys, shard, "f60000"));
            assertArrayEquals(ascii("dd:tables"), FingerprintTable.setKey(keys, shard));
            assertArrayEquals(ascii("dd:bf60000:"), FingerprintTable.bucketHead(keys, shard, "f60000"));
            assertArrayEquals(
                    new byte[] {'d', 'd', '{', 'r', 0, 0, 0, 0, 0, 0, 0, 1, '}', 'n', 's', 0, 's', '1'},
                    RedisRanges.key(keys, shard, "ns", "s1", 1));
        });
    }

    @Test
    void everyLayoutKeyOfAGroupIsInTheGroupsSlot() {
        int groups = 64;
        RedisKeys keys = RedisKeys.clustered("dd", groups);
        for (int g = 0; g < groups; g++) {
            int slot = RedisKeys.groupSlot(g);
            byte[] head = FingerprintTable.bucketHead(keys, g, "s86400000");
            byte[] bucket = Arrays.copyOf(head, head.length + 4);
            bucket[head.length] = '}'; // '}' and '{' bytes in the bucket number
            bucket[head.length + 1] = '{';
            assertEquals(slot, SlotHash.getSlot(bucket), "bucket of group " + g);
            assertEquals(
                    slot,
                    SlotHash.getSlot(FingerprintTable.stateKey(keys, g, "s86400000")),
                    "table state of group " + g);
            assertEquals(slot, SlotHash.getSlot(FingerprintTable.setKey(keys, g)), "set of tables of group " + g);
            assertEquals(
                    slot, SlotHash.getSlot(RedisRanges.key(keys, g, "n{s}", "stream}", 42)), "range of group " + g);
            assertEquals(
                    slot, SlotHash.getSlot(RedisSweeper.marker(keys, g, "f1000", 255)), "sweep marker of group " + g);
        }
    }
}
