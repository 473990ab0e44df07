package dev.dedup.codec;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dedup.wire.BatchEncoder;
import dev.dedup.wire.Item;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Event times through the encoders and back out of the decoders, and the batch builder's range check. */
class EventTimeRoundTripTest {

    private static final int MAX = 10_000;

    @Test
    void roundTrips_keepEveryEventSecond_inBothForms() {
        List<Item> items = List.of(
                new Item("a", "o", 1),
                new Item("\u20ac\ud83d\ude00", "p", 1_767_225_600L),
                new Item("a", "q", 0x8000_0000L),
                new Item("z", "o", Batch.MAX_EVENT_SECOND));
        for (Batch batch : List.of(
                BinaryBatchDecoder.decode(BatchEncoder.binary("ns", items), MAX),
                JsonBatchDecoder.decode(BatchEncoder.json("ns", items), MAX))) {
            assertEquals("ns", batch.namespace());
            assertEquals(items.size(), batch.size());
            assertTrue(batch.hasEventTimes());
            for (int i = 0; i < items.size(); i++) {
                assertEquals(items.get(i).eventSecond(), batch.eventSecond(i), "item " + i);
            }
        }
    }

    @Test
    void jsonRoundTripOfAMix_keepsWhichItemsHaveNone() {
        List<Item> items = List.of(new Item("a", "o"), new Item("b", "o", 42), new Item("c", "o"));
        Batch batch = JsonBatchDecoder.decode(BatchEncoder.json("t", items), MAX);
        assertEquals(
                List.of(Batch.NO_EVENT_TIME, 42L, Batch.NO_EVENT_TIME),
                List.of(batch.eventSecond(0), batch.eventSecond(1), batch.eventSecond(2)));
        assertEquals(0, batch.firstWithoutEventTime());
    }

    @Test
    void builderRefusesEventSecondsOutOfRange() {
        byte[] a = {'a'};
        assertThrows(IllegalArgumentException.class, () -> Batch.builder(1).add(a, 0, 1, a, 0, 1, -1));
        assertThrows(
                IllegalArgumentException.class,
                () -> Batch.builder(1).add(a, 0, 1, a, 0, 1, Batch.MAX_EVENT_SECOND + 1));
        assertFalse(Batch.builder(1)
                .add(a, 0, 1, a, 0, 1, Batch.NO_EVENT_TIME)
                .build("t")
                .hasEventTimes());
    }
}
