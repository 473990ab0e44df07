package dev.dedup.agent.store.redis.access.health;

import dev.dedup.agent.metrics.MetricNames;
import dev.dedup.agent.store.redis.access.EvictionReading;
import dev.dedup.agent.store.redis.access.RedisPort;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * Each shard's memory, read every {@value #EVERY_SECONDS} seconds: what a claim costs is memory, and a shard at
 * its {@code maxmemory} refuses new claims (503), so an operator is told well before ({@code
 * dedup_redis_memory_used_bytes} over {@code dedup_redis_memory_max_bytes}). The same {@code INFO memory} reply
 * tells its eviction policy ({@code dedup_redis_noeviction}): the start checks it once, this watches for a
 * policy changed afterwards, e.g. in a managed service's parameter group.
 */
public final class ShardMemory implements AutoCloseable {

    static final int EVERY_SECONDS = 15;

    private final RedisPort port;
    private final AtomicLongArray used;
    private final AtomicLongArray max;
    /** Per shard: 1 noeviction, 0 another policy, -1 not known (never read, or the reply does not say). */
    private final AtomicIntegerArray noeviction;

    private final ScheduledFuture<?> reading;

    public ShardMemory(RedisPort port, MeterRegistry registry, ScheduledExecutorService scheduler) {
        this.port = port;
        this.used = new AtomicLongArray(port.shards());
        this.max = new AtomicLongArray(port.shards());
        this.noeviction = new AtomicIntegerArray(port.shards());
        for (int s = 0; s < port.shards(); s++) {
            int shard = s;
            Gauge.builder(MetricNames.REDIS_MEMORY_USED, () -> used.get(shard))
                    .tag(MetricNames.TAG_SHARD, String.valueOf(s))
                    .baseUnit("bytes")
                    .description("Memory the shard uses (INFO memory used_memory), as last read")
                    .register(registry);
            Gauge.builder(MetricNames.REDIS_MEMORY_MAX, () -> max.get(shard))
                    .tag(MetricNames.TAG_SHARD, String.valueOf(s))
                    .baseUnit("bytes")
                    .description("The shard's maxmemory, at which it refuses new claims (0: none set)")
                    .register(registry);
            noeviction.set(s, -1);
            Gauge.builder(
                            MetricNames.REDIS_NOEVICTION,
                            () -> noeviction.get(shard) < 0 ? Double.NaN : noeviction.get(shard))
                    .tag(MetricNames.TAG_SHARD, String.valueOf(s))
                    .description("1 while the shard's maxmemory_policy is noeviction; 0 while it may evict claims,"
                            + " turning duplicates into new (INFO memory, as last read)")
                    .register(registry);
        }
        read();
        this.reading = scheduler.scheduleWithFixedDelay(this::read, EVERY_SECONDS, EVERY_SECONDS, TimeUnit.SECONDS);
    }

    private void read() {
        for (int s = 0; s < port.shards(); s++) {
            int shard = s;
            port.memory(s).whenComplete((m, failure) -> {
                if (failure == null) {
                    used.set(shard, m.used());
                    max.set(shard, m.max());
                    noeviction.set(
                            shard, m.policy() == null ? -1 : m.policy().equals(EvictionReading.NOEVICTION) ? 1 : 0);
                }
            });
        }
    }

    /** The shard's used and maximum memory as last read, for {@code /v1/stats}. */
    public long[] of(int shard) {
        return new long[] {used.get(shard), max.get(shard)};
    }

    @Override
    public void close() {
        reading.cancel(false);
    }
}
