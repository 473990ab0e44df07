package dev.dedup.kafka;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.charset.StandardCharsets;
import java.util.Optional;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.record.TimestampType;
import org.junit.jupiter.api.Test;

class MessageIdsTest {

    private static ConsumerRecord<String, byte[]> record(Headers headers) {
        return new ConsumerRecord<>(
                "clicks",
                3,
                1042L,
                0L,
                TimestampType.CREATE_TIME,
                0,
                0,
                "user-7",
                new byte[0],
                headers,
                Optional.empty());
    }

    private static RecordHeader h(String name, String value) {
        return new RecordHeader(name, value == null ? null : value.getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void theIdIsTheHeader_notTheKey() {
        ConsumerRecord<String, byte[]> r = record(new RecordHeaders().add(h("message-id", "ce059644")));
        assertEquals("ce059644", MessageIds.header(r, "message-id"));
        assertEquals(
                "ce059644", MessageIds.fromHeader(MessageIds.DEFAULT_HEADER).apply(r));
    }

    @Test
    void theLastHeaderOfTheName_asPythonsDictTakesIt() {
        ConsumerRecord<String, byte[]> r = record(new RecordHeaders()
                .add(h("message-id", "first"))
                .add(h("trace", "t1"))
                .add(h("message-id", "caf\u00e9")));
        assertEquals("caf\u00e9", MessageIds.header(r, "message-id"));
        assertEquals("t1", MessageIds.header(r, "trace"));
    }

    @Test
    void aRecordWithoutTheHeader_isRefused_sayingWhere() {
        IllegalArgumentException missing = assertThrows(
                IllegalArgumentException.class,
                () -> MessageIds.header(record(new RecordHeaders().add(h("trace", "t1"))), "message-id"));
        assertEquals(
                "the record at clicks:3:1042 has no header message-id: its producer must set the message's id there",
                missing.getMessage());
        for (String empty : new String[] {"", null}) {
            IllegalArgumentException e = assertThrows(
                    IllegalArgumentException.class,
                    () -> MessageIds.header(record(new RecordHeaders().add(h("message-id", empty))), "message-id"));
            assertEquals(
                    "the record at clicks:3:1042 has an empty header message-id: its producer must set the message's"
                            + " id there",
                    e.getMessage());
        }
    }
}
