package dev.dedup.agent.store.redis.topology;

import dev.dedup.agent.config.RedisOptions;
import java.util.List;

/**
 * The shard lists an agent was started with, as {@link dev.dedup.agent.store.redis.access.RedisPort} shard numbers
 * (every server the agent knows: {@code --redis}, then the others of {@code --redis-previous}): the current list,
 * and during a declared change the previous one and the second of the cut-over.
 *
 * <p>During a change a fingerprint claim or a stream's ranges live in the previous list's place until the cut-over
 * and in the current list's after it; one whose place differs ({@link #moves}) is looked for in its previous place
 * too. A time bucket lives in the list in force at its event second ({@link #timeShard}), whatever the cut-over.
 */
public final class ShardLists {

    private final Routing current;
    /** Null without a declared change. */
    private final Routing previous;

    private final long cutoverSecond;

    private ShardLists(Routing current, Routing previous, long cutoverSecond) {
        this.current = current;
        this.previous = previous;
        this.cutoverSecond = cutoverSecond;
    }

    /** {@code --redis}, and {@code --redis-previous} with {@code --redis-cutover} when they are given. */
    public static ShardLists of(RedisOptions options) {
        List<String> servers = options.servers();
        Routing current = Routing.over(indexes(options.uris(), servers));
        if (options.transition() == null) {
            return new ShardLists(current, null, Long.MIN_VALUE);
        }
        return new ShardLists(
                current,
                Routing.over(indexes(options.transition().previous(), servers)),
                options.transition().cutoverSecond());
    }

    /** Port shards {@code 0..shards-1} in one list, without a change. */
    public static ShardLists single(int shards) {
        return new ShardLists(Routing.single(shards), null, Long.MIN_VALUE);
    }

    private static int[] indexes(List<String> list, List<String> servers) {
        int[] out = new int[list.size()];
        for (int i = 0; i < out.length; i++) {
            out[i] = servers.indexOf(list.get(i));
        }
        return out;
    }

    /** Whether a change of the shard list is declared. */
    public boolean changing() {
        return previous != null;
    }

    public Routing current() {
        return current;
    }

    /** The list before the change; the current one without a change. */
    public Routing previous() {
        return previous == null ? current : previous;
    }

    /** The second from which the current list is in force; {@link Long#MIN_VALUE} without a change. */
    public long cutoverSecond() {
        return cutoverSecond;
    }

    /** Whether the change places {@code key} (a fingerprint bucket's, or a stream's ranges') on another server. */
    public boolean moves(long key) {
        return previous != null && previous.shard(key) != current.shard(key);
    }

    /** Where a time bucket of event second {@code second} whose placement hash is {@code hash} lives. */
    public int timeShard(long hash, long second) {
        return (previous != null && second < cutoverSecond ? previous : current).shard(hash);
    }
}
