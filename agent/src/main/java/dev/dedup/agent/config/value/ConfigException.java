package dev.dedup.agent.config.value;

/** A setting with a bad value. The message names the setting and the value, on one line. */
public final class ConfigException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    public ConfigException(String message) {
        super(message, null, false, false);
    }

    /** Throws unless {@code condition}, naming {@code setting}. */
    public static void require(boolean condition, String setting, Object value, String expectation) {
        if (!condition) {
            throw new ConfigException(setting + ": " + value + " is not valid; " + expectation);
        }
    }
}
