package dev.dedup.agent.store.redis.topology;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dedup.agent.config.RedisOptions;
import dev.dedup.agent.config.ShardTransition;
import dev.dedup.routing.JumpHash;
import java.time.Instant;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * Where each kind of key lives: by jump hash over the one list, and during a declared change in the previous list
 * until the cut-over (by event second for time buckets), in the current one after it.
 */
class RoutingTest {

    private static final String A = "redis://a:6379";
    private static final String B = "redis://b:6379";
    private static final String C = "redis://c:6379";
    private static final String D = "redis://d:6379";
    private static final long CUTOVER = 1_767_225_600L;

    private static Routing change(List<String> previous, List<String> current) {
        return Routing.of(RedisOptions.builder(current)
                .transition(new ShardTransition(previous, Instant.ofEpochSecond(CUTOVER)))
                .build());
    }

    private static long[] keys(int n) {
        SplittableRandom random = new SplittableRandom(7);
        long[] keys = new long[n];
        for (int i = 0; i < n; i++) {
            keys[i] = random.nextLong();
        }
        return keys;
    }

    @Test
    void oneList_placesEveryKeyByJumpHash_andMovesNothing() {
        Routing routing = Routing.of(RedisOptions.builder(List.of(A, B, C)).build());
        assertFalse(routing.inTransition());
        assertTrue(routing.cutOver(), "without a change, claims are made in the current list");
        assertArrayEquals(new int[] {0, 1, 2}, routing.current());
        assertArrayEquals(new int[0], routing.previous());
        for (long key : keys(10_000)) {
            int shard = JumpHash.shard(key, 3);
            assertEquals(shard, routing.shard(key));
            assertEquals(shard, routing.source(key));
            assertFalse(routing.moves(key));
            assertEquals(shard, routing.timeShard(key, 0));
            assertEquals(shard, routing.timeShard(key, Long.MAX_VALUE));
        }
    }

    @Test
    void singleOfN_isTheListOfPortsZeroToN() {
        Routing routing = Routing.single(5);
        assertArrayEquals(new int[] {0, 1, 2, 3, 4}, routing.current());
        assertEquals(JumpHash.shard(42, 5), routing.shard(42));
    }

    @Test
    void anAddedShard_takesClaimsOnlyAfterTheCutover_andOnlyTheKeysJumpHashMovesToIt() {
        Routing routing = change(List.of(A, B, C), List.of(A, B, C, D));
        assertTrue(routing.inTransition());
        assertFalse(routing.cutOver());
        long[] keys = keys(40_000);
        int moved = 0;
        for (long key : keys) {
            assertEquals(JumpHash.shard(key, 3), routing.shard(key), "before the cut-over: the previous list");
            assertEquals(routing.source(key), routing.shard(key));
            if (routing.moves(key)) {
                moved++;
                assertEquals(3, routing.target(key), "jump hash moves keys only to the new shard");
            } else {
                assertEquals(routing.source(key), routing.target(key));
            }
        }
        assertTrue(moved > 9_000 && moved < 11_000, "about a quarter of the keys move: " + moved);

        routing.cutOverNow();
        assertTrue(routing.cutOver());
        for (long key : keys) {
            assertEquals(JumpHash.shard(key, 4), routing.shard(key), "after the cut-over: the current list");
            assertEquals(JumpHash.shard(key, 3), routing.source(key), "still looked up where it was");
        }
    }

    @Test
    void aRemovedShard_keepsItsPortIndexAfterTheCurrentList_andGetsNothingAfterTheCutover() {
        // --redis a,c --redis-previous a,b,c: ports are a=0, c=1, then b=2.
        Routing routing = change(List.of(A, B, C), List.of(A, C));
        assertArrayEquals(new int[] {0, 1}, routing.current());
        assertArrayEquals(new int[] {0, 2, 1}, routing.previous());
        int[] before = new int[3];
        for (long key : keys(30_000)) {
            before[routing.shard(key)]++;
            assertEquals(new int[] {0, 2, 1}[JumpHash.shard(key, 3)], routing.source(key));
        }
        assertTrue(before[2] > 9_000, "b serves its third until the cut-over: " + before[2]);
        routing.cutOverNow();
        for (long key : keys(30_000)) {
            assertTrue(routing.shard(key) < 2, "b is out of the list");
            assertEquals(routing.source(key) != routing.target(key), routing.moves(key));
        }
    }

    @Test
    void aTimeBucket_goesToTheListInForceAtItsEventSecond_whateverTheCutoverState() {
        Routing routing = change(List.of(A, B, C), List.of(A, B, C, D));
        for (long hash : keys(5_000)) {
            assertEquals(JumpHash.shard(hash, 3), routing.timeShard(hash, CUTOVER - 1));
            assertEquals(JumpHash.shard(hash, 4), routing.timeShard(hash, CUTOVER));
        }
        routing.cutOverNow();
        for (long hash : keys(5_000)) {
            assertEquals(JumpHash.shard(hash, 3), routing.timeShard(hash, CUTOVER - 1), "a second before it");
        }
    }
}
