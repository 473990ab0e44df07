package dev.dedup.agent.config.load;

import dev.dedup.agent.config.AgentOptions;
import dev.dedup.agent.config.EmbeddedStoreOptions;
import dev.dedup.agent.config.HttpOptions;
import dev.dedup.agent.config.NearCacheOptions;
import dev.dedup.agent.config.OpsOptions;
import dev.dedup.agent.config.RedisOptions;
import dev.dedup.agent.config.ShardTransition;
import dev.dedup.agent.config.WindowMode;
import dev.dedup.agent.config.WindowOptions;
import dev.dedup.agent.config.value.ConfigException;
import dev.dedup.agent.config.value.RawValue;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The options being built: every setting at its default until a {@link Setting} applies a value, then
 * {@link #build} checks each group and the settings that only make sense together.
 */
final class Draft {

    final HttpOptions.Builder httpOptions = HttpOptions.builder();
    Integer opsPort;
    RawValue opsHost;

    Path dataDir = EmbeddedStoreOptions.DEFAULT_DATA_DIR;
    long embeddedSlots = EmbeddedStoreOptions.DEFAULT_SLOTS;
    int embeddedWays = EmbeddedStoreOptions.DEFAULT_WAYS;

    Duration window = WindowOptions.DEFAULT_WINDOW;
    final Map<String, Duration> namespaceWindows = new TreeMap<>();
    final Map<String, Integer> eventRates = new TreeMap<>();
    final Map<String, WindowMode> windowModes = new TreeMap<>();
    int maxNamespaces = WindowOptions.DEFAULT_MAX_NAMESPACES;

    List<String> redis = List.of();
    final RedisOptions.Builder redisOptions = RedisOptions.builder(List.of());
    RawValue redisPrevious;
    RawValue redisCutover;

    long nearCacheSize = NearCacheOptions.DEFAULT_MAX_ENTRIES;

    AgentOptions build() {
        HttpOptions http = httpOptions.ops(ops()).build();
        EmbeddedStoreOptions embedded = new EmbeddedStoreOptions(dataDir, embeddedSlots, embeddedWays);
        WindowOptions windows = new WindowOptions(window, namespaceWindows, eventRates, windowModes, maxNamespaces);
        RedisOptions redisTier =
                redisOptions.uris(redis).transition(transition()).build();
        return AgentOptions.builder()
                .http(http)
                .embedded(embedded)
                .windows(windows)
                .redis(redisTier)
                .nearCache(new NearCacheOptions(nearCacheSize))
                .build();
    }

    /** {@code ops-port}, with {@code ops-host}; null when no ops-port is given. */
    private OpsOptions ops() {
        if (opsPort == null) {
            if (opsHost != null) {
                throw new ConfigException(opsHost.origin() + " needs ops-port: it is the address of that port");
            }
            return null;
        }
        return new OpsOptions(opsHost == null ? OpsOptions.DEFAULT_HOST : opsHost.text(), opsPort);
    }

    /** {@code redis-previous} and {@code redis-cutover}, both or neither. */
    private ShardTransition transition() {
        List<String> previous = redisPrevious == null ? List.of() : Settings.shardUris(redisPrevious.text());
        boolean cutover = redisCutover != null && !redisCutover.text().isEmpty();
        if (previous.isEmpty() && !cutover) {
            return null;
        }
        if (previous.isEmpty() || !cutover) {
            throw new ConfigException((previous.isEmpty() ? redisCutover.origin() : redisPrevious.origin())
                    + " needs " + (previous.isEmpty() ? "redis-previous" : "redis-cutover")
                    + ": a change of the shard list names the shards before it and when the new list takes over");
        }
        return new ShardTransition(previous, ShardTransition.parseCutover(redisCutover.origin(), redisCutover.text()));
    }
}
