package dev.dedup.agent.store.redis.access.health;

import dev.dedup.agent.config.EvictionCheck;
import dev.dedup.agent.store.IncompatibleDeploymentException;
import dev.dedup.agent.store.redis.access.EvictionReading;
import dev.dedup.agent.store.redis.access.MemoryInfo;
import dev.dedup.agent.store.redis.access.RedisFailures;
import io.lettuce.core.api.async.RedisServerAsyncCommands;
import java.lang.System.Logger.Level;
import java.util.List;
import java.util.Map;

/**
 * Whether a Redis server may evict claims, and what the start does about it. An evicted bucket forgets its claims,
 * so the copies of their messages are answered {@code new}: nothing fails, nothing is logged. Only {@code
 * noeviction} is safe (a full server then refuses writes, answered 503).
 *
 * <p>The policy is read with {@code CONFIG GET maxmemory-policy}; where that is refused (ElastiCache, MemoryDB,
 * Memorystore and Azure disable {@code CONFIG}, an ACL may deny it, a server may rename it), from the {@code
 * maxmemory_policy} line of {@code INFO memory}, which those services answer.
 */
public final class EvictionPolicy {

    private static final System.Logger LOG = System.getLogger(EvictionPolicy.class.getName());

    private EvictionPolicy() {}

    /**
     * Reads the policy of the server behind {@code commands}: {@code CONFIG GET}, else {@code INFO memory}. The
     * asynchronous commands, awaited, rather than Lettuce's synchronous ones: those are a reflective proxy whose
     * method table costs a tenth of a second of start-up to build, per connection. Commands time out on their
     * own (the connections' {@code TimeoutOptions}).
     */
    public static EvictionReading read(String server, RedisServerAsyncCommands<?, ?> commands) {
        String config;
        try {
            Map<String, String> reply = RedisFailures.await(commands.configGet("maxmemory-policy"));
            String policy = reply.get("maxmemory-policy");
            if (policy != null) {
                return new EvictionReading(server, policy, "CONFIG GET");
            }
            config = "CONFIG GET maxmemory-policy answered nothing";
        } catch (RuntimeException e) {
            config = "CONFIG GET maxmemory-policy failed: " + firstLine(RedisFailures.rootMessage(e));
        }
        try {
            String policy = MemoryInfo.parse(RedisFailures.await(commands.info("memory")))
                    .policy();
            if (policy != null) {
                return new EvictionReading(server, policy, "INFO memory, CONFIG GET being refused");
            }
            return new EvictionReading(server, null, config + ", and INFO memory has no maxmemory_policy line");
        } catch (RuntimeException e) {
            return new EvictionReading(
                    server, null, config + ", and INFO memory failed: " + firstLine(RedisFailures.rootMessage(e)));
        }
    }

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

    private static String firstLine(String s) {
        int nl = s.indexOf('\n');
        return nl < 0 ? s : s.substring(0, nl);
    }
}
