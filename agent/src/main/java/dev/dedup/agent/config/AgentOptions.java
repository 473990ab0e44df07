package dev.dedup.agent.config;

import java.time.Duration;

/** Everything the agent is started with, validated: one options value per component. */
public record AgentOptions(
        HttpOptions http,
        EmbeddedStoreOptions embedded,
        WindowOptions windows,
        RedisOptions redis,
        NearCacheOptions nearCache) {

    public AgentOptions {
        if (redis.enabled()) {
            check(windows.defaultWindow(), "window");
            windows.perNamespace().forEach((ns, w) -> check(w, "namespace." + ns + ".window"));
        }
    }

    /** The embedded store, no Redis. */
    public AgentOptions(HttpOptions http, EmbeddedStoreOptions embedded, WindowOptions windows) {
        this(http, embedded, windows, RedisOptions.none(), NearCacheOptions.defaults());
    }

    private static void check(Duration window, String setting) {
        ConfigException.require(
                window.compareTo(RedisOptions.MAX_WINDOW) <= 0,
                setting,
                Durations.format(window),
                "the Redis store keeps windows of up to " + Durations.format(RedisOptions.MAX_WINDOW));
    }

    public static AgentOptions defaults() {
        return new AgentOptions(HttpOptions.defaults(), EmbeddedStoreOptions.defaults(), WindowOptions.defaults());
    }

    public AgentOptions withRedis(RedisOptions newRedis) {
        return new AgentOptions(http, embedded, windows, newRedis, nearCache);
    }

    public AgentOptions withNearCache(NearCacheOptions newNearCache) {
        return new AgentOptions(http, embedded, windows, redis, newNearCache);
    }
}
