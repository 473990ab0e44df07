package dev.dedup.agent.store.redis.access;

/**
 * What one server said of its {@code maxmemory-policy}, for the start's eviction check.
 *
 * @param server   the server for messages ({@code redis shard redis://host:6379}, a cluster's node)
 * @param policy   its {@code maxmemory-policy}, or null when neither command told it
 * @param evidence the command the policy was read with, or why it could not be read
 */
public record EvictionReading(String server, String policy, String evidence) {

    /** The one policy that never evicts claims. */
    public static final String NOEVICTION = "noeviction";

    public boolean known() {
        return policy != null;
    }

    public boolean safe() {
        return NOEVICTION.equals(policy);
    }
}
