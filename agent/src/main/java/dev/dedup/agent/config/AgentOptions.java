package dev.dedup.agent.config;

/** Everything the agent is started with, validated: one options value per component. */
public record AgentOptions(
        HttpOptions http,
        EmbeddedStoreOptions embedded,
        WindowOptions windows,
        RedisOptions redis,
        NearCacheOptions nearCache) {

    /** The embedded store, no Redis. */
    public AgentOptions(HttpOptions http, EmbeddedStoreOptions embedded, WindowOptions windows) {
        this(http, embedded, windows, RedisOptions.none(), NearCacheOptions.defaults());
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
