package dev.dedup.loadtest.workload;

import dev.dedup.wire.BatchEncoder;
import dev.dedup.wire.Item;
import java.util.ArrayList;
import java.util.List;

/**
 * An agent's request format with every message's event time: {@code "ts"} in JSON, the event-times
 * flag and a u32 per item in binary. Message second {@code s} is sent as epoch second {@code epoch + s},
 * so every copy of a message carries its original's time.
 */
public record EventTimeEncoding(Format format, long epoch) implements BatchEncoding {

    @Override
    public byte[] encode(String namespace, List<Message> messages) {
        List<Item> items = new ArrayList<>(messages.size());
        for (Message m : messages) {
            items.add(new Item(m.id(), m.owner(), epoch + m.eventSecond()));
        }
        return format == Format.BINARY ? BatchEncoder.binary(namespace, items) : BatchEncoder.json(namespace, items);
    }

    @Override
    public String cliName() {
        return format.cliName() + "+ts";
    }
}
