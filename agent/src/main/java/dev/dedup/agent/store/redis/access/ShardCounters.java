package dev.dedup.agent.store.redis.access;

import dev.dedup.agent.metrics.MetricNames;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;

/** Counters of the Redis tier kept per shard (per group on a Redis Cluster), tagged {@code shard}. */
public final class ShardCounters {

    private ShardCounters() {}

    /** One counter {@code name} per shard of {@code port}, with {@code tags} (pairs) besides the shard. */
    public static Counter[] of(
            MeterRegistry registry, RedisPort port, String name, String description, String... tags) {
        Counter[] counters = new Counter[port.shards()];
        for (int s = 0; s < counters.length; s++) {
            counters[s] = Counter.builder(name)
                    .tag(MetricNames.TAG_SHARD, String.valueOf(s))
                    .tags(tags)
                    .description(description)
                    .register(registry);
        }
        return counters;
    }
}
