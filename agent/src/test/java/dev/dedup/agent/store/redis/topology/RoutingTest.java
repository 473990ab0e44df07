package dev.dedup.agent.store.redis.topology;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.dedup.routing.JumpHash;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** Where a key lives in one shard list: by jump hash over the list, named by port shard numbers. */
class RoutingTest {

    static long[] keys(int n) {
        SplittableRandom random = new SplittableRandom(7);
        long[] keys = new long[n];
        for (int i = 0; i < n; i++) {
            keys[i] = random.nextLong();
        }
        return keys;
    }

    @Test
    void singleOfN_isTheListOfPortsZeroToN_placedByJumpHash() {
        Routing routing = Routing.single(5);
        assertArrayEquals(new int[] {0, 1, 2, 3, 4}, routing.shards());
        for (long key : keys(10_000)) {
            assertEquals(JumpHash.shard(key, 5), routing.shard(key));
        }
    }

    @Test
    void aListOfPortShards_placesByJumpHashOverItsOwnLength() {
        Routing routing = Routing.over(new int[] {0, 2, 1});
        for (long key : keys(10_000)) {
            assertEquals(new int[] {0, 2, 1}[JumpHash.shard(key, 3)], routing.shard(key));
        }
    }

    @Test
    void anEmptyList_isRefused() {
        assertThrows(IllegalArgumentException.class, () -> Routing.over(new int[0]));
    }
}
