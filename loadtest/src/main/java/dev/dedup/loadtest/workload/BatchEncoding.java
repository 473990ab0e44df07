package dev.dedup.loadtest.workload;

import java.util.List;

/**
 * Turns the messages of one request into the bytes a transport sends: an HTTP body for an agent
 * ({@link Format}), or the direct transport's own encoding. Runs before a scenario's clock starts.
 */
public interface BatchEncoding {

    byte[] encode(String namespace, List<Message> messages);

    /** How the table and the JSON line name it: {@code binary}, {@code json}, {@code direct}. */
    String cliName();
}
