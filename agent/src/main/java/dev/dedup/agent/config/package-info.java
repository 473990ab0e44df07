/**
 * Configuration: one immutable, validated options record per component ({@code HttpOptions},
 * {@code EmbeddedStoreOptions}, {@code WindowOptions}), and the loader that merges flags, {@code DEDUP_*}
 * environment variables, a properties file and defaults. A bad value fails with a
 * {@link dev.dedup.agent.config.ConfigException} naming the setting; nothing here starts anything.
 */
package dev.dedup.agent.config;
