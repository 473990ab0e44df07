/**
 * Loading: the loader that merges flags, {@code DEDUP_*} environment variables, a properties file and defaults into
 * the options records of {@link dev.dedup.agent.config}. Each setting is declared once in {@code Settings} (name,
 * environment variable, file key, parser, default, help): the loader, {@code --help} and the configuration page's
 * table come from that declaration. What the options are lives in {@link dev.dedup.agent.config}; how one value
 * is read and bounded in {@link dev.dedup.agent.config.value}.
 */
package dev.dedup.agent.config.load;
