package dev.dedup.agent.store.redis.access;

/**
 * The lines of an {@code INFO memory} reply the agent reads. Managed services that refuse {@code CONFIG} still
 * answer {@code INFO}, so this is also where the eviction policy is read when {@code CONFIG GET} is refused.
 *
 * @param used   {@code used_memory}, bytes; 0 when the reply lacks it
 * @param max    {@code maxmemory}, bytes; 0 when none is set or the reply lacks it
 * @param policy {@code maxmemory_policy}, or null when the reply lacks it
 */
public record MemoryInfo(long used, long max, String policy) {

    public static MemoryInfo parse(String info) {
        long used = 0;
        long max = 0;
        String policy = null;
        for (String line : info.split("\r?\n")) {
            if (line.startsWith("used_memory:")) {
                used = Long.parseLong(line.substring("used_memory:".length()).trim());
            } else if (line.startsWith("maxmemory:")) {
                max = Long.parseLong(line.substring("maxmemory:".length()).trim());
            } else if (line.startsWith("maxmemory_policy:")) {
                policy = line.substring("maxmemory_policy:".length()).trim();
            }
        }
        return new MemoryInfo(used, max, policy);
    }
}
