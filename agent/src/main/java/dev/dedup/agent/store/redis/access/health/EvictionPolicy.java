package dev.dedup.agent.store.redis.access.health;

import dev.dedup.agent.config.EvictionCheck;
import dev.dedup.agent.store.IncompatibleDeploymentException;
import dev.dedup.agent.store.redis.access.EvictionReading;
import java.lang.System.Logger.Level;
import java.util.List;

/**
 * Whether a Redis server may evict claims, and what the start does about it. An evicted bucket forgets its claims,
 * so the copies of their messages are answered {@code new}: nothing fails, nothing is logged. Only {@code
 * noeviction} is safe (a full server then refuses writes, answered 503).
 *
 * <p>The connections read each server's policy ({@code EvictionReadings} in their package); this class judges
 * what they read.
 */
public final class EvictionPolicy {

    private static final System.Logger LOG = System.getLogger(EvictionPolicy.class.getName());

    private EvictionPolicy() {}

    /**
     * Refuses the start ({@link EvictionCheck#REQUIRE}) at the first server that may evict or does not say, or
     * warns about each ({@link EvictionCheck#WARN}).
     *
     * @throws IncompatibleDeploymentException naming the server, what it said and what to do (the agent exits 2)
     */
    public static void judge(List<EvictionReading> readings, EvictionCheck check) {
        for (EvictionReading r : readings) {
            if (r.safe()) {
                continue;
            }
            String problem = r.known()
                    ? r.server() + " has maxmemory-policy " + r.policy() + " (read with " + r.evidence()
                            + "): Redis may evict claims, which turns duplicates into new"
                    : "cannot verify that " + r.server() + " does not evict claims: " + r.evidence();
            if (check == EvictionCheck.REQUIRE) {
                throw new IncompatibleDeploymentException("redis-eviction-check: " + problem
                        + (r.known()
                                ? "; set maxmemory-policy noeviction"
                                : "; make sure its maxmemory-policy is noeviction")
                        + ", or start with --redis-eviction-check warn to accept the risk (docs/managed-redis.md)");
            }
            LOG.log(
                    Level.WARNING,
                    problem + ". Set maxmemory-policy noeviction (starting anyway: --redis-eviction-check warn)");
        }
    }
}
