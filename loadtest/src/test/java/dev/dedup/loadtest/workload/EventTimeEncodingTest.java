package dev.dedup.loadtest.workload;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dedup.codec.Batch;
import dev.dedup.codec.BinaryBatchDecoder;
import dev.dedup.codec.JsonBatchDecoder;
import dev.dedup.wire.BatchEncoder;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

class EventTimeEncodingTest {

    private static final long EPOCH = 1_767_225_600L; // 2026-01-01T00:00:00Z
    private static final List<Message> MESSAGES = List.of(
            new Message("m-0", "p0:0", 0),
            new Message("m-1", "p1:7", 1),
            new Message("m-0", "p9:3", 0),
            new Message("m-2", "p2:2", 2_000_000));

    @Test
    void binary_setsTheFlag_andSendsEpochPlusTheMessagesSecond_streamsPacked3000SecondsApart() {
        byte[] body = new EventTimeEncoding(Format.BINARY, EPOCH).encode("clicks", MESSAGES);
        assertEquals(BatchEncoder.EVENT_TIMES | "clicks".length(), body[0] & 0xff);

        Batch batch = BinaryBatchDecoder.decode(body, 100);
        assertEquals("clicks", batch.namespace());
        assertEquals(
                List.of(EPOCH, EPOCH + 1, EPOCH, EPOCH + 2 * EventTimeEncoding.STREAM_SPAN_SECONDS), seconds(batch));
    }

    @Test
    void json_sendsTsOnEveryItem() {
        byte[] body = new EventTimeEncoding(Format.JSON, EPOCH).encode("clicks", MESSAGES);
        String text = new String(body, StandardCharsets.UTF_8);
        assertTrue(
                text.startsWith("{\"ns\":\"clicks\",\"items\":[{\"id\":\"m-0\",\"owner\":\"p0:0\",\"ts\":1767225600},"
                        + "{\"id\":\"m-1\",\"owner\":\"p1:7\",\"ts\":1767225601},"),
                text);

        assertEquals(
                List.of(EPOCH, EPOCH + 1, EPOCH, EPOCH + 2 * EventTimeEncoding.STREAM_SPAN_SECONDS),
                seconds(JsonBatchDecoder.decode(body, 100)));
    }

    @Test
    void everyCopyOfAMessage_carriesItsOriginalsTime() {
        Batch batch = BinaryBatchDecoder.decode(new EventTimeEncoding(Format.BINARY, EPOCH).encode("t", MESSAGES), 100);
        assertEquals(batch.key(0), batch.key(2), "the same message");
        assertEquals(batch.eventSecond(0), batch.eventSecond(2));
    }

    @Test
    void idsAndOwners_areThoseOfThePlainFormat() {
        for (Format format : Format.values()) {
            byte[] timed = new EventTimeEncoding(format, EPOCH).encode("t", MESSAGES);
            byte[] plain = format.encode("t", MESSAGES);
            Batch a = decode(format, timed).withoutEventTimes();
            Batch b = decode(format, plain);
            assertFalse(b.hasEventTimes(), format.cliName());
            for (int i = 0; i < MESSAGES.size(); i++) {
                assertEquals(b.key(i), a.key(i), format.cliName());
                assertEquals(b.route(i), a.route(i), format.cliName());
                assertEquals(b.owner(i), a.owner(i), format.cliName());
            }
        }
    }

    @Test
    void namedAfterTheFormat_plusTs() {
        assertEquals("binary+ts", new EventTimeEncoding(Format.BINARY, EPOCH).cliName());
        assertEquals("json+ts", new EventTimeEncoding(Format.JSON, EPOCH).cliName());
    }

    @Test
    void preparedWorkloads_sendTheIdSpacesEventSeconds() {
        IdSpace ids = new IdSpace("run", 1, IdSpace.MEASURED);
        int n = EventTime.EVENTS_PER_SECOND + 1; // the last message is of the run's second second
        Workload w = Workload.prepare(
                "cold",
                Scenario.COLD.uniformPlan(n),
                ids,
                new Ledger(n),
                "t",
                new EventTimeEncoding(Format.BINARY, EPOCH),
                n);
        assertEquals("binary+ts", w.encoding());
        Batch batch = BinaryBatchDecoder.decode(w.batches().get(0).body(), n);
        assertEquals(EPOCH, batch.eventSecond(0));
        assertEquals(EPOCH, batch.eventSecond(n - 2));
        assertEquals(EPOCH + 1, batch.eventSecond(n - 1));
    }

    private static Batch decode(Format format, byte[] body) {
        return format == Format.BINARY ? BinaryBatchDecoder.decode(body, 100) : JsonBatchDecoder.decode(body, 100);
    }

    private static List<Long> seconds(Batch batch) {
        return java.util.stream.IntStream.range(0, batch.size())
                .mapToObj(batch::eventSecond)
                .toList();
    }
}
