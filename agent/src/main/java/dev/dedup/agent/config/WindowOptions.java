package dev.dedup.agent.config;

import dev.dedup.wire.Limits;
import java.time.Duration;
import java.util.Map;
import java.util.TreeMap;

/**
 * How long a claim is remembered: one default window, and windows for named namespaces.
 *
 * @param defaultWindow window of every namespace not listed
 * @param perNamespace  windows of listed namespaces
 */
public record WindowOptions(Duration defaultWindow, Map<String, Duration> perNamespace) {

    public static final Duration DEFAULT_WINDOW = Duration.ofHours(24);
    public static final Duration MIN_WINDOW = Duration.ofSeconds(1);
    public static final Duration MAX_WINDOW = Duration.ofDays(365);

    public WindowOptions {
        check("window", defaultWindow);
        perNamespace.forEach((ns, w) -> {
            ConfigException.require(Limits.isValidNamespace(ns), "namespace." + ns + ".window", ns,
                    "a namespace is 1 to 64 of A-Z a-z 0-9 . _ -");
            check("namespace." + ns + ".window", w);
        });
        perNamespace = Map.copyOf(perNamespace);
    }

    private static void check(String setting, Duration w) {
        ConfigException.require(w != null && w.compareTo(MIN_WINDOW) >= 0 && w.compareTo(MAX_WINDOW) <= 0, setting,
                w == null ? null : Durations.format(w), "use 1s to 365d");
    }

    public static WindowOptions defaults() {
        return new WindowOptions(DEFAULT_WINDOW, Map.of());
    }

    public long windowMillis(String namespace) {
        return perNamespace.getOrDefault(namespace, defaultWindow).toMillis();
    }

    /** For {@code /v1/stats}: the default and the named windows, formatted. */
    public Map<String, String> describe() {
        Map<String, String> out = new TreeMap<>();
        perNamespace.forEach((ns, w) -> out.put(ns, Durations.format(w)));
        out.put("*", Durations.format(defaultWindow));
        return out;
    }
}
