package dev.dedup.agent.config.value;

import java.time.Duration;
import java.util.Locale;

/**
 * A value as given, with where it was given ({@code --port}, {@code DEDUP_PORT}, {@code port (in
 * agent.properties)}), which every complaint about it names.
 */
public record RawValue(String origin, String text) {

    public int integer() {
        long n = longValue();
        if (n < Integer.MIN_VALUE || n > Integer.MAX_VALUE) {
            throw new ConfigException(origin + ": '" + text + "' is out of range");
        }
        return (int) n;
    }

    public long longValue() {
        try {
            return Long.parseLong(text.replace("_", ""));
        } catch (NumberFormatException e) {
            throw new ConfigException(origin + ": '" + text + "' is not a whole number");
        }
    }

    public boolean bool() {
        return switch (text.toLowerCase(Locale.ROOT)) {
            case "true", "yes", "1" -> true;
            case "false", "no", "0" -> false;
            default -> throw new ConfigException(origin + ": '" + text + "' is not true or false");
        };
    }

    public Duration duration() {
        return Durations.parse(origin, text);
    }

    public long size() {
        return Sizes.parse(origin, text);
    }

    /** The text, or null when it is empty (a setting cleared in the environment or a file). */
    public String textOrNull() {
        return text.isEmpty() ? null : text;
    }
}
