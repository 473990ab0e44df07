package dev.dedup.loadtest.workload;

import dev.dedup.wire.Item;
import java.util.ArrayList;
import java.util.List;

/**
 * An agent's request format with every message's event time: {@code "ts"} in JSON, the event-times
 * flag and a u32 per item in binary, so every copy of a message carries its original's time. The id
 * streams' stretches of event time ({@link IdSpace}: a million seconds apart, which the direct side keeps)
 * are packed {@link #STREAM_SPAN_SECONDS} apart here, so that a run's four streams fit in the few hours
 * after {@code epoch} and none of them lies ahead of the agent's clock or beyond its window.
 */
public record EventTimeEncoding(Format format, long epoch) implements BatchEncoding {

    /** Seconds of event time per stream: 100 M ids (the generator's most) at 33,334 a second. */
    public static final int STREAM_SPAN_SECONDS = 3_000;
    /** Seconds of event time a run spans at most: its four streams. */
    public static final int RUN_SPAN_SECONDS = 4 * STREAM_SPAN_SECONDS;

    /** The epoch second message second {@code eventSecond} is sent as. */
    public long epochSecond(int eventSecond) {
        int stream = eventSecond / IdSpace.STREAM_SECONDS;
        return epoch + (long) stream * STREAM_SPAN_SECONDS + eventSecond % IdSpace.STREAM_SECONDS;
    }

    /**
     * The default epoch at {@code nowSecond}: the start of the hour, four hours back, so that a run's event
     * times lie between 5 hours and 40 minutes in the past, and runs within one hour agree on them (a retry
     * run given an earlier run's --run-id re-sends the same times).
     */
    public static long defaultEpoch(long nowSecond) {
        return Math.floorDiv(nowSecond, 3600L) * 3600 - 4 * 3600;
    }

    @Override
    public byte[] encode(String namespace, List<Message> messages) {
        List<Item> items = new ArrayList<>(messages.size());
        for (Message m : messages) {
            items.add(new Item(m.id(), m.owner(), epochSecond(m.eventSecond())));
        }
        return format.body(namespace, items);
    }

    @Override
    public String cliName() {
        return format.cliName() + "+ts";
    }
}
