/**
 * Configuration: one immutable, validated options record per component ({@code HttpOptions},
 * {@code EmbeddedStoreOptions}, {@code WindowOptions}, {@code RedisOptions}, {@code NearCacheOptions}), each
 * with its defaults and the {@link dev.dedup.agent.config.Bounds} of its settings, and the loader that merges
 * flags, {@code DEDUP_*} environment variables, a properties file and defaults. Each setting is declared once in
 * {@code Settings}: the loader, {@code --help} and the configuration page's table come from that declaration, and
 * a record built in code checks the same bounds. A bad value fails with a
 * {@link dev.dedup.agent.config.ConfigException} naming the setting; nothing here starts anything.
 */
package dev.dedup.agent.config;
