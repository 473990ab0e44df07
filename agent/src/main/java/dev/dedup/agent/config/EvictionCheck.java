package dev.dedup.agent.config;

import dev.dedup.agent.config.value.ConfigException;
import java.util.Locale;

/**
 * What the agent does at start about a Redis server that may evict claims ({@code maxmemory-policy} other than
 * {@code noeviction}) or whose policy it cannot read: an evicted claim turns the copies of its message into
 * {@code new}, silently, so the default refuses.
 */
public enum EvictionCheck {
    /**
     * Start only when every server says {@code noeviction}, through {@code CONFIG GET} or, where {@code CONFIG} is
     * refused, {@code INFO memory}; else exit 2 naming the server.
     */
    REQUIRE,
    /** Start whatever the servers say, and log a warning for each one that may evict or does not say. */
    WARN;

    public static final EvictionCheck DEFAULT = REQUIRE;

    /** {@code require} or {@code warn}; else a configuration error naming {@code setting}. */
    public static EvictionCheck parse(String setting, String text) {
        return switch (text.trim().toLowerCase(Locale.ROOT)) {
            case "require" -> REQUIRE;
            case "warn" -> WARN;
            default ->
                throw new ConfigException(setting + ": '" + text + "' is not an eviction check; write require"
                        + " (refuse to start unless every Redis server says maxmemory-policy noeviction) or warn");
        };
    }

    @Override
    public String toString() {
        return name().toLowerCase(Locale.ROOT);
    }
}
