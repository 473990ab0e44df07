package dev.dedup.agent.config;

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
 * @param defaultWindow window of every namespace not listed
 * @param perNamespace  windows of listed namespaces
 * @param eventRates    namespaces that file claims by event time, with their expected peak ids per second
 *                      over all workers (Redis sizes its time buckets by it)
 */
public record WindowOptions(
        Duration defaultWindow, Map<String, Duration> perNamespace, Map<String, Integer> eventRates) {

    /** The largest event rate: 100 million ids per second. */
    public static final int MAX_EVENT_RATE = 100_000_000;

    /** The event-rate entry that applies to every namespace not named: {@code namespace.*.event-rate}. */
    public static final String EVERY_NAMESPACE = "*";

    public WindowOptions(Duration defaultWindow, Map<String, Duration> perNamespace) {
        this(defaultWindow, perNamespace, Map.of());
    }

    public static final Duration DEFAULT_WINDOW = Duration.ofHours(24);
    public static final Duration MIN_WINDOW = Duration.ofSeconds(1);
    public static final Duration MAX_WINDOW = Duration.ofDays(365);

    public WindowOptions {
        check("window", defaultWindow);
        perNamespace.forEach((ns, w) -> {
            ConfigException.require(
                    Limits.isValidNamespace(ns),
                    "namespace." + ns + ".window",
                    ns,
                    "a namespace is 1 to 64 of A-Z a-z 0-9 . _ -");
            check("namespace." + ns + ".window", w);
        });
        perNamespace = Map.copyOf(perNamespace);
        eventRates.forEach((ns, rate) -> {
            String setting = "namespace." + ns + ".event-rate";
            ConfigException.require(
                    ns.equals(EVERY_NAMESPACE) || Limits.isValidNamespace(ns),
                    setting,
                    ns,
                    "a namespace is 1 to 64 of A-Z a-z 0-9 . _ -, or * for every namespace");
            ConfigException.require(
                    rate != null && rate >= 1 && rate <= MAX_EVENT_RATE,
                    setting,
                    String.valueOf(rate),
                    "use 1 to " + MAX_EVENT_RATE + " ids per second");
        });
        eventRates = Map.copyOf(eventRates);
    }

    /** The namespace's expected ids per second when it files claims by event time, else 0. */
    public int eventRate(String namespace) {
        Integer rate = eventRates.get(namespace);
        return rate != null ? rate : eventRates.getOrDefault(EVERY_NAMESPACE, 0);
    }

    private static void check(String setting, Duration w) {
        ConfigException.require(
                w != null && w.compareTo(MIN_WINDOW) >= 0 && w.compareTo(MAX_WINDOW) <= 0,
                setting,
                w == null ? null : Durations.format(w),
                "use 1s to 365d");
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

    /** For {@code /v1/stats}: the namespaces filed by event time and their rates. */
    public Map<String, Integer> describeEventRates() {
        return new TreeMap<>(eventRates);
    }
}
