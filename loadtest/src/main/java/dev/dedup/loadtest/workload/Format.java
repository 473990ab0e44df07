package dev.dedup.loadtest.workload;

import dev.dedup.wire.Item;
import dev.dedup.wire.WireFormat;
import java.util.ArrayList;
import java.util.List;

/**
 * The two request formats of {@code POST /v1/claims} ({@link WireFormat}) as the load generator's encodings,
 * without event times ({@link EventTimeEncoding} adds them).
 */
public enum Format implements BatchEncoding {
    BINARY(WireFormat.BINARY),
    JSON(WireFormat.JSON);

    private final WireFormat wire;

    Format(WireFormat wire) {
        this.wire = wire;
    }

    @Override
    public String cliName() {
        return wire.label();
    }

    /** The request's {@code Content-Type}. */
    public String requestType() {
        return wire.requestType();
    }

    /** The {@code Content-Type} of a 200 answer. */
    public String responseType() {
        return wire.responseType();
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
        return wire.encode(namespace, items);
    }
}
