package dev.dedup.kafka.streams;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dedup.client.Claims;
import dev.dedup.client.DedupClient;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.processor.api.RecordMetadata;
import org.junit.jupiter.api.Test;

/** The processor's settings and its buffer's format, without a broker (KafkaStreamsDedupIT runs it against one). */
class DedupTest {

    private static final Claims CLAIMS =
            new Claims(DedupClient.create(URI.create("http://127.0.0.1:1")), "ns", Duration.ofSeconds(1));

    private static final RecordMetadata AT = new RecordMetadata() {
        @Override
        public String topic() {
            return "clicks";
        }

        @Override
        public int partition() {
            return 2;
        }

        @Override
        public long offset() {
            return 41;
        }
    };

    @Test
    void aBufferedRecordComesBackAsItWent_withItsClaim() {
        Dedup<String, String> dedup =
                Dedup.builder(CLAIMS, Serdes.String(), Serdes.String()).build();
        RecordHeaders headers = new RecordHeaders();
        headers.add("message-id", "m-1".getBytes(StandardCharsets.UTF_8));
        headers.add("empty", null);
        Record<String, String> record = new Record<>("k", "v", 1_700_000_000_123L, headers);
        byte[] stored = BufferedRecord.encode(dedup, record, "m-1", "clicks:2:41", 1_700_000_000L);
        BufferedRecord<String, String> back = BufferedRecord.decode(dedup, stored);
        assertEquals("k", back.record().key());
        assertEquals("v", back.record().value());
        assertEquals(1_700_000_000_123L, back.record().timestamp());
        assertArrayEquals(headers.toArray(), back.record().headers().toArray());
        assertEquals("m-1", back.item().id());
        assertEquals("clicks:2:41", back.item().owner());

        Record<String, String> nulls = new Record<>(null, null, 5L, new RecordHeaders());
        BufferedRecord<String, String> none =
                BufferedRecord.decode(dedup, BufferedRecord.encode(dedup, nulls, "m-2", "o", -1));
        assertNull(none.record().key());
        assertNull(none.record().value());
    }

    @Test
    void theIdIsTheLastHeader_orWhatTheFunctionReads_andAMissingOneSaysWhere() {
        RecordHeaders headers = new RecordHeaders();
        headers.add("message-id", "first".getBytes(StandardCharsets.UTF_8));
        headers.add("message-id", "last".getBytes(StandardCharsets.UTF_8));
        Record<String, String> record = new Record<>("k", "{\"id\":\"v-7\"}", 0L, headers);
        assertEquals(
                "last",
                Dedup.builder(CLAIMS, Serdes.String(), Serdes.String()).build().idOf(record, AT));
        assertEquals(
                "v-7",
                Dedup.builder(CLAIMS, Serdes.String(), Serdes.String())
                        .id(r -> r.value().substring(7, 10))
                        .build()
                        .idOf(record, AT));
        IllegalArgumentException missing = assertThrows(
                IllegalArgumentException.class,
                () -> Dedup.builder(CLAIMS, Serdes.String(), Serdes.String())
                        .idFromHeader("other")
                        .build()
                        .idOf(record, AT));
        assertTrue(
                missing.getMessage().startsWith("the record at clicks:2:41 has no (or an empty) header other"),
                missing.getMessage());
    }

    @Test
    void settingsAreCheckedWhenSet_namingThem() {
        Dedup.Builder<String, String> b = Dedup.builder(CLAIMS, Serdes.String(), Serdes.String());
        assertEquals(
                "chunk: 1 to 100,000 records, got 0",
                assertThrows(IllegalArgumentException.class, () -> b.chunk(0)).getMessage());
        assertEquals(
                "flushEvery: must be positive, got PT0S",
                assertThrows(IllegalArgumentException.class, () -> b.flushEvery(Duration.ZERO))
                        .getMessage());
        assertTrue(assertThrows(IllegalArgumentException.class, () -> b.storeName("no spaces"))
                .getMessage()
                .startsWith("storeName: "));
        assertEquals(1, b.storeName("dedup-b").build().stores().size(), "one buffer store, added by process()");
    }
}
