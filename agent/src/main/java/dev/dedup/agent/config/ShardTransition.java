package dev.dedup.agent.config;

import dev.dedup.agent.config.value.ConfigException;
import java.time.DateTimeException;
import java.time.Instant;
import java.util.List;

/**
 * A declared change of the shard list (Tapjoy's previous and current configuration): the list before the
 * change and the instant from which the current list ({@code --redis}) is the one claims are made in.
 *
 * @param previous the shards before the change, in their order, written as they were in {@code --redis}
 * @param cutover  from this instant on, claims without event time are made in the current list (buckets
 *                 that change shard are moved there); an item filed by event time goes to the list in force
 *                 at its event second
 */
public record ShardTransition(List<String> previous, Instant cutover) {

    public ShardTransition {
        previous = List.copyOf(previous);
        ConfigException.require(!previous.isEmpty(), "redis-previous", "", "name the shards before the change");
        for (String uri : previous) {
            ConfigException.require(
                    RedisOptions.isShard(uri), "redis-previous", RedisOptions.redact(uri), RedisOptions.SHARD_FORMS);
        }
        ConfigException.require(
                previous.stream().distinct().count() == previous.size(),
                "redis-previous",
                previous.stream().map(RedisOptions::redact).toList(),
                "names a shard twice");
        ConfigException.require(cutover != null, "redis-cutover", null, "required with redis-previous");
    }

    /** {@code WHEN} as an epoch second ({@code 1767225600}) or an ISO-8601 instant ({@code 2026-01-01T00:00:00Z}). */
    public static Instant parseCutover(String setting, String text) {
        String t = text.trim();
        try {
            if (t.matches("\\d{1,12}")) {
                return Instant.ofEpochSecond(Long.parseLong(t));
            }
            return Instant.parse(t);
        } catch (DateTimeException | NumberFormatException e) {
            throw new ConfigException(setting + ": '" + text
                    + "' is not an instant; write an epoch second (1767225600) or an ISO-8601 instant"
                    + " (2026-01-01T00:00:00Z)");
        }
    }

    /** The cut-over as an epoch second (claims and event seconds are compared with it). */
    public long cutoverSecond() {
        return cutover.getEpochSecond();
    }
}
