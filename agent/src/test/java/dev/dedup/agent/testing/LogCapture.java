package dev.dedup.agent.testing;

import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Every message logged while a test class runs, at every level, kept as text. Register it before an
 * {@link AgentUnderTest} ({@code @Order}) to read what the agent logs from its start on.
 */
public final class LogCapture extends Handler implements BeforeAllCallback, AfterAllCallback {

    private final StringBuffer text = new StringBuffer();

    @Override
    public void beforeAll(ExtensionContext context) {
        Logger.getLogger("").addHandler(this);
        Logger.getLogger("").setLevel(Level.ALL);
    }

    @Override
    public void afterAll(ExtensionContext context) {
        Logger.getLogger("").removeHandler(this);
    }

    @Override
    public void publish(LogRecord r) {
        text.append(r.getMessage()).append('\n');
    }

    @Override
    public void flush() {}

    @Override
    public void close() {}

    /** What was logged so far, one message a line. */
    public String text() {
        return text.toString();
    }
}
