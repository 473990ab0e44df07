package dev.dedup.loadtest.workload;

import dev.dedup.wire.BatchEncoder;
import dev.dedup.wire.Item;
import java.util.ArrayList;
import java.util.List;

/** The two request formats of {@code POST /v1/claims}, without event times ({@link EventTimeEncoding} adds them). */
public enum Format implements BatchEncoding {
    BINARY("binary", "application/x-dedup-batch", "application/x-dedup-verdicts"),
    JSON("json", "application/json", "application/json");

    private final String cliName;
    private final String requestType;
    private final String responseType;

    Format(String cliName, String requestType, String responseType) {
        this.cliName = cliName;
        this.requestType = requestType;
        this.responseType = responseType;
    }

    @Override
    public String cliName() {
        return cliName;
    }

    /** The request's {@code Content-Type}. */
    public String requestType() {
        return requestType;
    }

    /** The {@code Content-Type} of a 200 answer. */
    public String responseType() {
        return responseType;
    }

    @Override
    public byte[] encode(String namespace, List<Message> messages) {
        List<Item> items = new ArrayList<>(messages.size());
        for (Message m : messages) {
            items.add(new Item(m.id(), m.owner()));
        }
        return body(namespace, items);
    }

    /** A request body of these items in this format (with their event times, when they carry them). */
    public byte[] body(String namespace, List<Item> items) {
        return this == BINARY ? BatchEncoder.binary(namespace, items) : BatchEncoder.json(namespace, items);
    }
}
