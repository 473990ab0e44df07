package dev.dedup.agent.config;

import dev.dedup.agent.config.value.ConfigException;
import java.util.Locale;

/** How a namespace's window runs: from the claim ({@link #FIXED}) or from the latest repeat ({@link #SLIDING}). */
public enum WindowMode {
    /** A claim ends a window after it is made (or after its event time): Tapjoy's rule. */
    FIXED,
    /**
     * Every answer {@code retry} or {@code duplicate} also extends the claim's end to a window from then
     * (AdMaster's renew-on-hit): a message whose copies keep arriving stays recognised as long as they do.
     */
    SLIDING;

    public static final WindowMode DEFAULT = FIXED;

    /** {@code fixed} or {@code sliding}; else a configuration error naming {@code setting}. */
    public static WindowMode parse(String setting, String text) {
        return switch (text.trim()) {
            case "fixed" -> FIXED;
            case "sliding" -> SLIDING;
            default ->
                throw new ConfigException(setting + ": '" + text + "' is not a window mode; write fixed or sliding");
        };
    }

    @Override
    public String toString() {
        return name().toLowerCase(Locale.ROOT);
    }
}
