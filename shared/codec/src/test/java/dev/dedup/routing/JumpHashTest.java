package dev.dedup.routing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class JumpHashTest {

    @Test
    void oneShardTakesEverything() {
        assertEquals(0, JumpHash.shard(123, 1));
        assertEquals(0, JumpHash.shard(-1, 1));
    }

    @Test
    void spreadsEvenly() {
        int shards = 3;
        int[] counts = new int[shards];
        SplittableRandom r = new SplittableRandom(1);
        int n = 300_000;
        for (int i = 0; i < n; i++) {
            counts[JumpHash.shard(r.nextLong(), shards)]++;
        }
        for (int c : counts) {
            assertTrue(Math.abs(c - n / shards) < n / shards * 0.02, "uneven: " + java.util.Arrays.toString(counts));
        }
    }

    @Test
    void addingAShardMovesKeysOnlyToTheNewShard() {
        SplittableRandom r = new SplittableRandom(2);
        int moved = 0;
        int n = 100_000;
        for (int i = 0; i < n; i++) {
            long key = r.nextLong();
            int before = JumpHash.shard(key, 3);
            int after = JumpHash.shard(key, 4);
            if (before != after) {
                assertEquals(3, after, "a key moved between old shards");
                moved++;
            }
        }
        assertTrue(Math.abs(moved - n / 4) < n / 4 * 0.05, "moved " + moved);
    }

    @Test
    void rejectsNoShards() {
        assertThrows(IllegalArgumentException.class, () -> JumpHash.shard(1, 0));
    }
}
