package dev.dedup.agent.store.redis.access.connections;

import dev.dedup.agent.store.redis.access.EvictionReading;
import dev.dedup.agent.store.redis.access.MemoryInfo;
import dev.dedup.agent.store.redis.access.RedisFailures;
import io.lettuce.core.api.async.RedisServerAsyncCommands;
import java.util.Map;

/**
 * Reads a server's {@code maxmemory-policy} for the start's eviction check ({@link
 * dev.dedup.agent.store.redis.access.health.EvictionPolicy}, which judges it): with {@code CONFIG GET
 * maxmemory-policy}, and where that is refused (ElastiCache, MemoryDB, Memorystore and Azure disable {@code CONFIG},
 * an ACL may deny it, a server may rename it) from the {@code maxmemory_policy} line of {@code INFO memory}, which
 * those services answer.
 */
final class EvictionReadings {

    private EvictionReadings() {}

    /**
     * Reads the policy of the server behind {@code commands}: {@code CONFIG GET}, else {@code INFO memory}. The
     * asynchronous commands, awaited, rather than Lettuce's synchronous ones: those are a reflective proxy whose
     * method table costs a tenth of a second of start-up to build, per connection. Commands time out on their
     * own (the connections' {@code TimeoutOptions}).
     */
    static EvictionReading read(String server, RedisServerAsyncCommands<?, ?> commands) {
        String config;
        try {
            Map<String, String> reply = RedisFailures.await(commands.configGet("maxmemory-policy"));
            String policy = reply.get("maxmemory-policy");
            if (policy != null) {
                return new EvictionReading(server, policy, "CONFIG GET");
            }
            config = "CONFIG GET maxmemory-policy answered nothing";
        } catch (RuntimeException e) {
            config = "CONFIG GET maxmemory-policy failed: " + LettuceFailures.firstLine(RedisFailures.rootMessage(e));
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
                    server,
                    null,
                    config + ", and INFO memory failed: " + LettuceFailures.firstLine(RedisFailures.rootMessage(e)));
        }
    }
}
