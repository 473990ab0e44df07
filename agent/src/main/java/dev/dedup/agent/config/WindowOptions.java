package dev.dedup.agent.config;

import dev.dedup.agent.config.value.Bounds;
import dev.dedup.agent.config.value.ConfigException;
import dev.dedup.agent.config.value.Durations;
import dev.dedup.wire.Limits;
import java.time.Duration;
import java.util.Map;
import java.util.TreeMap;

/**
 * How long a claim is remembered: one default window, and windows for named namespaces; and which
 * namespaces file their claims by the messages' event time.
 *
 * <p>In a namespace with an event rate every item must carry its event time ({@code "ts"}), and a claim
 * is remembered until that time plus the window (counted from the claim when the event time lies ahead of
 * the agent's clock). Elsewhere event times are ignored and a claim lives for the window from the claim.
 *
 * <p>A namespace's window is {@link WindowMode#FIXED} unless its mode says {@link WindowMode#SLIDING}. A
 * sliding namespace cannot file claims by event time: event-time buckets end with their second, all their
 * claims together, so one claim cannot be renewed without keeping every other of its second too; the
 * combination is refused.
 *
 * @param defaultWindow window of every namespace not listed
 * @param perNamespace  windows of listed namespaces
 * @param eventRates    namespaces that file claims by event time, with their expected peak ids per second
 *                      over all workers (Redis sizes its time buckets by it)
 * @param windowModes   namespaces whose window mode is set ({@code *}: every namespace not named)
 * @param maxNamespaces most namespaces, besides those named here, that requests may name while the agent runs: each
 *                      keeps state (an event clock, a table per shard and its meters on Redis) until it stops
 */
public record WindowOptions(
        Duration defaultWindow,
        Map<String, Duration> perNamespace,
        Map<String, Integer> eventRates,
        Map<String, WindowMode> windowModes,
        int maxNamespaces) {

    /** The largest event rate: 100 million ids per second. */
    public static final int MAX_EVENT_RATE = 100_000_000;

    public static final Bounds<Integer> EVENT_RATE_BOUNDS =
            Bounds.ints(1, MAX_EVENT_RATE).in("ids per second");

    /** The event-rate entry that applies to every namespace not named: {@code namespace.*.event-rate}. */
    public static final String EVERY_NAMESPACE = "*";

    public WindowOptions(Duration defaultWindow, Map<String, Duration> perNamespace) {
        this(defaultWindow, perNamespace, Map.of(), Map.of());
    }

    /** At most {@value #DEFAULT_MAX_NAMESPACES} namespaces besides the named ones. */
    public WindowOptions(
            Duration defaultWindow,
            Map<String, Duration> perNamespace,
            Map<String, Integer> eventRates,
            Map<String, WindowMode> windowModes) {
        this(defaultWindow, perNamespace, eventRates, windowModes, DEFAULT_MAX_NAMESPACES);
    }

    public static final int DEFAULT_MAX_NAMESPACES = 1000;
    public static final Bounds<Integer> MAX_NAMESPACES_BOUNDS = Bounds.ints(1, 1_000_000);

    /** Every window fixed. */
    public WindowOptions(Duration defaultWindow, Map<String, Duration> perNamespace, Map<String, Integer> eventRates) {
        this(defaultWindow, perNamespace, eventRates, Map.of());
    }

    public static final Duration DEFAULT_WINDOW = Duration.ofHours(24);
    /** The window of every namespace, and of each named one. */
    public static final Bounds<Duration> WINDOW_BOUNDS = Bounds.durations(Duration.ofSeconds(1), Duration.ofDays(365));

    public WindowOptions {
        WINDOW_BOUNDS.check("window", defaultWindow);
        MAX_NAMESPACES_BOUNDS.check("max-namespaces", maxNamespaces);
        perNamespace.forEach((ns, w) -> {
            ConfigException.require(
                    Limits.isValidNamespace(ns),
                    "namespace." + ns + ".window",
                    ns,
                    "a namespace is 1 to 64 of A-Z a-z 0-9 . _ -");
            WINDOW_BOUNDS.check("namespace." + ns + ".window", w);
        });
        perNamespace = Map.copyOf(perNamespace);
        eventRates.forEach((ns, rate) -> {
            String setting = "namespace." + ns + ".event-rate";
            ConfigException.require(
                    ns.equals(EVERY_NAMESPACE) || Limits.isValidNamespace(ns),
                    setting,
                    ns,
                    "a namespace is 1 to 64 of A-Z a-z 0-9 . _ -, or * for every namespace");
            EVENT_RATE_BOUNDS.check(setting, rate);
        });
        eventRates = Map.copyOf(eventRates);
        windowModes.forEach((ns, mode) -> ConfigException.require(
                ns.equals(EVERY_NAMESPACE) || Limits.isValidNamespace(ns),
                "namespace." + ns + ".window-mode",
                ns,
                "a namespace is 1 to 64 of A-Z a-z 0-9 . _ -, or * for every namespace"));
        windowModes = Map.copyOf(windowModes);
        java.util.Set<String> named = new java.util.TreeSet<>(eventRates.keySet());
        named.addAll(windowModes.keySet());
        named.add(EVERY_NAMESPACE);
        for (String ns : named) {
            Integer rate = eventRates.getOrDefault(ns, eventRates.get(EVERY_NAMESPACE));
            WindowMode mode = windowModes.getOrDefault(ns, windowModes.get(EVERY_NAMESPACE));
            ConfigException.require(
                    rate == null || rate == 0 || mode != WindowMode.SLIDING,
                    "namespace." + ns + ".window-mode",
                    "sliding",
                    "namespace " + ns + " files claims by event time (event-rate " + rate + "), whose buckets"
                            + " end with their second, all their claims together: a claim there cannot be renewed"
                            + " alone. Use a fixed window there, or no event rate");
        }
    }

    /** The namespace's window mode. */
    public WindowMode windowMode(String namespace) {
        WindowMode mode = windowModes.get(namespace);
        return mode != null ? mode : windowModes.getOrDefault(EVERY_NAMESPACE, WindowMode.DEFAULT);
    }

    /** The namespace's expected ids per second when it files claims by event time, else 0. */
    public int eventRate(String namespace) {
        Integer rate = eventRates.get(namespace);
        return rate != null ? rate : eventRates.getOrDefault(EVERY_NAMESPACE, 0);
    }

    public static WindowOptions defaults() {
        return new WindowOptions(DEFAULT_WINDOW, Map.of());
    }

    public long windowMillis(String namespace) {
        return perNamespace.getOrDefault(namespace, defaultWindow).toMillis();
    }

    /** The namespaces named by any per-namespace setting ({@code *} not among them). */
    public java.util.Set<String> named() {
        java.util.Set<String> named = new java.util.TreeSet<>(perNamespace.keySet());
        named.addAll(eventRates.keySet());
        named.addAll(windowModes.keySet());
        named.remove(EVERY_NAMESPACE);
        return named;
    }

    /** The longest window of any namespace. */
    public long longestMillis() {
        long longest = defaultWindow.toMillis();
        for (Duration w : perNamespace.values()) {
            longest = Math.max(longest, w.toMillis());
        }
        return longest;
    }

    /** For {@code /v1/stats}: the default and the named windows, formatted. */
    public Map<String, String> describe() {
        Map<String, String> out = new TreeMap<>();
        perNamespace.forEach((ns, w) -> out.put(ns, Durations.format(w)));
        out.put("*", Durations.format(defaultWindow));
        return out;
    }

    /** For {@code /v1/stats}: the namespaces whose window mode is set, and their modes. */
    public Map<String, String> describeWindowModes() {
        Map<String, String> out = new TreeMap<>();
        windowModes.forEach((ns, mode) -> out.put(ns, mode.toString()));
        return out;
    }

    /** For {@code /v1/stats}: the namespaces filed by event time and their rates. */
    public Map<String, Integer> describeEventRates() {
        return new TreeMap<>(eventRates);
    }
}
