package dev.dedup.agent.config.value;

import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Durations as the configuration writes them: {@code 500ms}, {@code 30s}, {@code 15m}, {@code 24h}, {@code 7d}. */
public final class Durations {

    private static final Pattern DURATION = Pattern.compile("(\\d{1,12})(ms|s|m|h|d)");

    private Durations() {}

    public static Duration parse(String setting, String text) {
        Matcher m = DURATION.matcher(text.trim());
        if (!m.matches()) {
            throw new ConfigException(
                    setting + ": '" + text + "' is not a duration; write e.g. 500ms, 30s, 15m, 24h or 7d");
        }
        long n = Long.parseLong(m.group(1));
        return switch (m.group(2)) {
            case "ms" -> Duration.ofMillis(n);
            case "s" -> Duration.ofSeconds(n);
            case "m" -> Duration.ofMinutes(n);
            case "h" -> Duration.ofHours(n);
            default -> Duration.ofDays(n);
        };
    }

    /** An exact, readable form: {@code 7d}, {@code 24h}, {@code 90s}, {@code 1500ms} (days from 4d on). */
    public static String format(Duration d) {
        long ms = d.toMillis();
        if (ms % 86_400_000L == 0 && ms >= 4 * 86_400_000L) {
            return ms / 86_400_000L + "d";
        }
        if (ms % 3_600_000L == 0 && ms > 0) {
            return ms / 3_600_000L + "h";
        }
        if (ms % 60_000L == 0 && ms > 0) {
            return ms / 60_000L + "m";
        }
        if (ms % 1000L == 0) {
            return ms / 1000L + "s";
        }
        return ms + "ms";
    }
}
