package dev.dedup.agent.config.value;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Byte sizes as the configuration writes them: {@code 8388608}, {@code 512KiB}, {@code 8MiB}, {@code 1GiB}. */
public final class Sizes {

    private static final Pattern SIZE = Pattern.compile("(\\d{1,12})(|B|KiB|MiB|GiB|KB|MB|GB)");

    private Sizes() {}

    public static long parse(String setting, String text) {
        Matcher m = SIZE.matcher(text.trim());
        if (!m.matches()) {
            throw new ConfigException(setting + ": '" + text + "' is not a size; write e.g. 65536, 512KiB or 8MiB");
        }
        long n = Long.parseLong(m.group(1));
        return switch (m.group(2)) {
            case "KiB" -> n << 10;
            case "MiB" -> n << 20;
            case "GiB" -> n << 30;
            case "KB" -> n * 1000;
            case "MB" -> n * 1000_000;
            case "GB" -> n * 1000_000_000;
            default -> n;
        };
    }

    /** The largest binary unit that divides {@code bytes} exactly: {@code 8MiB}, {@code 512KiB}, {@code 100}. */
    public static String format(long bytes) {
        String[] units = {"GiB", "MiB", "KiB"};
        int[] shifts = {30, 20, 10};
        for (int u = 0; u < units.length; u++) {
            long unit = 1L << shifts[u];
            if (bytes != 0 && bytes % unit == 0) {
                return (bytes >> shifts[u]) + units[u];
            }
        }
        return Long.toString(bytes);
    }
}
