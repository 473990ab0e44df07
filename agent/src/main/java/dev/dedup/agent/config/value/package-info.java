/**
 * Values of settings: the {@code Bounds} a setting accepts, the text forms of durations and sizes, the rules for
 * tokens, a value as given with where it was given ({@code RawValue}), and the {@code ConfigException} that names a
 * setting and its bad value. These depend on no options record and no loader; both
 * {@link dev.dedup.agent.config} and {@link dev.dedup.agent.config.load} use them.
 */
package dev.dedup.agent.config.value;
