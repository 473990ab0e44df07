package dev.dedup.agent.store.redis.topology;

import static dev.dedup.agent.store.redis.topology.RoutingTest.keys;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dedup.agent.config.RedisOptions;
import dev.dedup.agent.config.ShardTransition;
import dev.dedup.routing.JumpHash;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The lists an agent was started with: one list without a change; during a declared change the previous list's
 * servers after the current list's among the port's shards, the keys jump hash moves, and time buckets in the list
 * of their event second.
 */
class ShardListsTest {

    private static final String A = "redis://a:6379";
    private static final String B = "redis://b:6379";
    private static final String C = "redis://c:6379";
    private static final String D = "redis://d:6379";
    private static final long CUTOVER = 1_767_225_600L;

    private static ShardLists change(List<String> previous, List<String> current) {
        return ShardLists.of(RedisOptions.builder(current)
                .transition(new ShardTransition(previous, Instant.ofEpochSecond(CUTOVER)))
                .build());
    }

    @Test
    void oneList_placesEveryKeyByJumpHash_andMovesNothing() {
        ShardLists lists = ShardLists.of(RedisOptions.builder(List.of(A, B, C)).build());
        assertFalse(lists.changing());
        assertSame(lists.current(), lists.previous(), "without a change the previous list is the current one");
        assertArrayEquals(new int[] {0, 1, 2}, lists.current().shards());
        for (long key : keys(10_000)) {
            int shard = JumpHash.shard(key, 3);
            assertEquals(shard, lists.current().shard(key));
            assertFalse(lists.moves(key));
            assertEquals(shard, lists.timeShard(key, 0));
            assertEquals(shard, lists.timeShard(key, Long.MAX_VALUE));
        }
    }

    @Test
    void anAddedShard_takesOnlyTheKeysJumpHashMovesToIt() {
        ShardLists lists = change(List.of(A, B, C), List.of(A, B, C, D));
        assertTrue(lists.changing());
        assertEquals(CUTOVER, lists.cutoverSecond());
        int moved = 0;
        for (long key : keys(40_000)) {
            assertEquals(JumpHash.shard(key, 3), lists.previous().shard(key));
            assertEquals(JumpHash.shard(key, 4), lists.current().shard(key));
            if (lists.moves(key)) {
                moved++;
                assertEquals(3, lists.current().shard(key), "jump hash moves keys only to the new shard");
            } else {
                assertEquals(lists.previous().shard(key), lists.current().shard(key));
            }
        }
        assertTrue(moved > 9_000 && moved < 11_000, "about a quarter of the keys move: " + moved);
    }

    @Test
    void aRemovedShard_keepsItsPortIndexAfterTheCurrentList_andIsNotInIt() {
        // --redis a,c --redis-previous a,b,c: ports are a=0, c=1, then b=2.
        ShardLists lists = change(List.of(A, B, C), List.of(A, C));
        assertArrayEquals(new int[] {0, 1}, lists.current().shards());
        assertArrayEquals(new int[] {0, 2, 1}, lists.previous().shards());
        int[] before = new int[3];
        for (long key : keys(30_000)) {
            before[lists.previous().shard(key)]++;
            assertEquals(
                    new int[] {0, 2, 1}[JumpHash.shard(key, 3)],
                    lists.previous().shard(key));
            assertTrue(lists.current().shard(key) < 2, "b is out of the current list");
            assertEquals(lists.previous().shard(key) != lists.current().shard(key), lists.moves(key));
        }
        assertTrue(before[2] > 9_000, "b serves its third of the previous list: " + before[2]);
    }

    @Test
    void aTimeBucket_goesToTheListInForceAtItsEventSecond() {
        ShardLists lists = change(List.of(A, B, C), List.of(A, B, C, D));
        for (long hash : keys(5_000)) {
            assertEquals(JumpHash.shard(hash, 3), lists.timeShard(hash, CUTOVER - 1));
            assertEquals(JumpHash.shard(hash, 4), lists.timeShard(hash, CUTOVER));
        }
    }
}
