package dev.dedup.agent.store.redis.topology;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dedup.agent.store.redis.access.RedisKeys;
import io.lettuce.core.cluster.SlotHash;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class TopologyRecordTest {

    @Test
    void aStandaloneShardKeepsItsRecordUnderTheSameKey_whateverTheShard() {
        RedisKeys keys = new RedisKeys("dd");
        for (int shard : new int[] {0, 2}) {
            assertArrayEquals("dd:topology".getBytes(StandardCharsets.US_ASCII), TopologyRecord.key(keys, shard));
        }
    }

    @Test
    void aClusterGroupKeepsItsRecordInItsOwnSlot() {
        RedisKeys keys = RedisKeys.clustered("dd", 64);
        for (int g = 0; g < 64; g++) {
            byte[] key = TopologyRecord.key(keys, g);
            assertEquals(RedisKeys.groupSlot(g), SlotHash.getSlot(key), "topology record of group " + g);
            assertTrue(new String(key, StandardCharsets.US_ASCII).startsWith("dd{g" + g + "."));
        }
    }
}
