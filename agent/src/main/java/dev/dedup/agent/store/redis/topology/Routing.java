package dev.dedup.agent.store.redis.topology;

import dev.dedup.routing.JumpHash;

/**
 * Which shard of one shard list holds a key: a fingerprint bucket (by its id's high bits), a time bucket or a
 * stream's ranges (by their placement hash), each by jump hash over the list. The list is of {@link
 * dev.dedup.agent.store.redis.access.RedisPort} shard numbers, so that two lists over one port (during a declared
 * change, {@link ShardLists}) name a server the same.
 */
public final class Routing {

    /** Port shard number of each place in the list. */
    private final int[] shards;

    private Routing(int[] shards) {
        if (shards.length == 0) {
            throw new IllegalArgumentException("a shard list needs at least one shard");
        }
        this.shards = shards;
    }

    /** The list whose place {@code i} is port shard {@code shards[i]}. */
    public static Routing over(int[] shards) {
        return new Routing(shards.clone());
    }

    /** Port shards {@code 0..shards-1}, in order. */
    public static Routing single(int shards) {
        int[] all = new int[shards];
        for (int i = 0; i < shards; i++) {
            all[i] = i;
        }
        return new Routing(all);
    }

    /** The port shard numbers of the list, in its order. */
    public int[] shards() {
        return shards.clone();
    }

    /** The port shard that holds {@code key}. */
    public int shard(long key) {
        return shards[JumpHash.shard(key, shards.length)];
    }
}
