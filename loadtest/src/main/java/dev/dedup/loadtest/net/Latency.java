package dev.dedup.loadtest.net;

import java.time.Duration;
import java.util.Locale;

/** A duration as a person writes it for a link: {@code 0}, {@code 300us}, {@code 0.3ms}, {@code 1ms}, {@code 2s}. */
public final class Latency {

    private Latency() {}

    /** {@code text} as a duration, or an {@link IllegalArgumentException} naming {@code what} and the value. */
    public static Duration parse(String what, String text) {
        String t = text.trim().toLowerCase(Locale.ROOT);
        double scale;
        String number;
        if (t.equals("0")) {
            return Duration.ZERO;
        } else if (t.endsWith("us")) {
            scale = 1e3;
            number = t.substring(0, t.length() - 2);
        } else if (t.endsWith("ms")) {
            scale = 1e6;
            number = t.substring(0, t.length() - 2);
        } else if (t.endsWith("s")) {
            scale = 1e9;
            number = t.substring(0, t.length() - 1);
        } else {
            throw new IllegalArgumentException(what + ": '" + text + "' has no unit (us, ms or s; e.g. 0.3ms)");
        }
        double value;
        try {
            value = Double.parseDouble(number);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(what + ": '" + text + "' is not a number with a unit (e.g. 0.3ms)");
        }
        if (!(value >= 0) || value * scale > 60e9) {
            throw new IllegalArgumentException(what + ": '" + text + "' is outside 0 to 60s");
        }
        return Duration.ofNanos(Math.round(value * scale));
    }
}
