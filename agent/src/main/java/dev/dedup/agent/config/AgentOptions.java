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
        return builder().build();
    }

    /** Every component at its defaults: the embedded store on loopback, no Redis. */
    public static Builder builder() {
        return new Builder();
    }

    /** A builder holding these options, to change some components. */
    public Builder toBuilder() {
        return new Builder()
                .http(http)
                .embedded(embedded)
                .windows(windows)
                .redis(redis)
                .nearCache(nearCache);
    }

    /** Options being built, one component at a time; each component was checked when it was built. */
    public static final class Builder {
        private HttpOptions http = HttpOptions.defaults();
        private EmbeddedStoreOptions embedded = EmbeddedStoreOptions.defaults();
        private WindowOptions windows = WindowOptions.defaults();
        private RedisOptions redis = RedisOptions.none();
        private NearCacheOptions nearCache = NearCacheOptions.defaults();

        private Builder() {}

        public Builder http(HttpOptions options) {
            this.http = options;
            return this;
        }

        public Builder embedded(EmbeddedStoreOptions options) {
            this.embedded = options;
            return this;
        }

        public Builder windows(WindowOptions options) {
            this.windows = options;
            return this;
        }

        public Builder redis(RedisOptions options) {
            this.redis = options;
            return this;
        }

        public Builder nearCache(NearCacheOptions options) {
            this.nearCache = options;
            return this;
        }

        public AgentOptions build() {
            return new AgentOptions(http, embedded, windows, redis, nearCache);
        }
    }
}
