/**
 * Options: one immutable, validated record per component ({@code HttpOptions}, {@code OpsOptions},
 * {@code EmbeddedStoreOptions}, {@code WindowOptions}, {@code RedisOptions}, {@code NearCacheOptions}, gathered in
 * {@code AgentOptions}) and the enums and values they hold, each with its defaults and the
 * {@link dev.dedup.agent.config.value.Bounds} of its settings. This is what a setting is; reading settings from
 * flags, the environment and a file lives in {@link dev.dedup.agent.config.load}, and the rules for one value
 * (bounds, durations, sizes, tokens) in {@link dev.dedup.agent.config.value}. A record built in code checks the
 * same bounds the loader does; a bad value fails with a {@link dev.dedup.agent.config.value.ConfigException}
 * naming the setting. Nothing here starts anything.
 */
package dev.dedup.agent.config;
