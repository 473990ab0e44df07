package dev.dedup.examples.kafka;

import dev.dedup.examples.sink.Event;
import java.util.List;

/** What a loop does with the records it keeps: write their output durably, e.g. in one sink transaction. */
@FunctionalInterface
public interface BatchProcessor {
    /**
     * @param kept        the records answered new or retry, in poll order
     * @param nextOffsets one past the last offset read per partition in this batch, duplicates included (a sink that
     *                    stores it with the output can skip what it already applied: see {@code AggregateSink})
     * @throws Exception when processing failed: the loop gives the claims back and the records are delivered again
     */
    void process(List<Event> kept, java.util.Map<Integer, Long> nextOffsets) throws Exception;
}
