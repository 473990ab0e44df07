package dev.dedup.agent.store.redis.topology;

import dev.dedup.agent.config.RedisOptions;
import dev.dedup.routing.JumpHash;
import java.util.List;

/**
 * Which shard of the {@link RedisPort} (every server the agent knows: the current list, then the previous
 * one's others) holds a bucket, a time bucket or a stream's ranges.
 *
 * <p>Without a declared transition each kind of key is placed by jump hash over the current list. During a
 * transition ({@code --redis-previous}, {@code --redis-cutover}):
 *
 * <ul>
 *   <li>a time bucket goes to the list in force at its event second: the previous list before the
 *       cut-over, the current from it (Tapjoy's rule); nothing of this layout moves;
 *   <li>a fingerprint claim or a stream's ranges is in the previous list's place until the agent has
 *       {@linkplain #cutOver() cut over}, in the current list's place after; an id whose shard changed is
 *       looked up in its previous shard too, until everything claimed before the cut-over has ended.
 * </ul>
 */
public final class Routing {

    /** Port index of each shard of the current list. */
    private final int[] current;
    /** Port index of each shard of the previous list; null without a transition. */
    private final int[] previous;

    private final long cutoverSecond;
    private volatile boolean cutOver;

    private Routing(int[] current, int[] previous, long cutoverSecond) {
        this.current = current;
        this.previous = previous;
        this.cutoverSecond = cutoverSecond;
        this.cutOver = previous == null;
    }

    public static Routing of(RedisOptions options) {
        List<String> servers = options.servers();
        int[] current = indexes(options.uris(), servers);
        if (options.transition() == null) {
            return new Routing(current, null, Long.MIN_VALUE);
        }
        return new Routing(
                current,
                indexes(options.transition().previous(), servers),
                options.transition().cutoverSecond());
    }

    /** Every shard in one list of {@code shards}, without a transition. */
    public static Routing single(int shards) {
        int[] all = new int[shards];
        for (int i = 0; i < shards; i++) {
            all[i] = i;
        }
        return new Routing(all, null, Long.MIN_VALUE);
    }

    private static int[] indexes(List<String> list, List<String> servers) {
        int[] out = new int[list.size()];
        for (int i = 0; i < out.length; i++) {
            out[i] = servers.indexOf(list.get(i));
        }
        return out;
    }

    public boolean inTransition() {
        return previous != null;
    }

    /** Whether claims without event time are made in the current list (always so without a transition). */
    public boolean cutOver() {
        return cutOver;
    }

    void cutOverNow() {
        cutOver = true;
    }

    long cutoverSecond() {
        return cutoverSecond;
    }

    public int[] current() {
        return current.clone();
    }

    /** The previous list's port indexes; empty without a transition. */
    int[] previous() {
        return previous == null ? new int[0] : previous.clone();
    }

    /** Where a fingerprint bucket (or a stream's ranges, by its hash) is now. */
    public int shard(long key) {
        return cutOver ? target(key) : source(key);
    }

    /** Its place in the current list. */
    int target(long key) {
        return current[JumpHash.shard(key, current.length)];
    }

    /** Its place in the previous list (the current one without a transition). */
    public int source(long key) {
        return previous == null ? target(key) : previous[JumpHash.shard(key, previous.length)];
    }

    /** Whether the declared change moves a fingerprint bucket (or a stream's ranges) to another server. */
    public boolean moves(long key) {
        return previous != null && source(key) != target(key);
    }

    /** Where a time bucket of {@code second} whose placement hash is {@code hash} lives. */
    public int timeShard(long hash, long second) {
        int[] list = previous != null && second < cutoverSecond ? previous : current;
        return list[JumpHash.shard(hash, list.length)];
    }
}
