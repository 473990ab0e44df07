package dev.dedup.flink;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.apache.flink.api.common.functions.util.ListCollector;
import org.apache.flink.api.common.serialization.SimpleStringSchema;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.common.typeutils.CompositeType;
import org.apache.flink.api.java.typeutils.PojoTypeInfo;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.record.TimestampType;
import org.junit.jupiter.api.Test;

class ClaimableDeserializerTest {

    private static ConsumerRecord<byte[], byte[]> record(long offset, long timestamp, String id, String value) {
        RecordHeaders headers = new RecordHeaders();
        if (id != null) {
            headers.add("message-id", id.getBytes(StandardCharsets.UTF_8));
        }
        return new ConsumerRecord<>(
                "clicks",
                2,
                offset,
                timestamp,
                TimestampType.CREATE_TIME,
                -1,
                -1,
                "app1".getBytes(StandardCharsets.UTF_8),
                value == null ? null : value.getBytes(StandardCharsets.UTF_8),
                headers,
                Optional.empty());
    }

    private static List<Claimable<String>> read(ClaimableDeserializer<String> d, ConsumerRecord<byte[], byte[]> r)
            throws Exception {
        List<Claimable<String>> out = new ArrayList<>();
        d.deserialize(r, new ListCollector<>(out));
        return out;
    }

    @Test
    void idFromTheHeader_ownerFromTopicPartitionOffset_timestampAndValueKept() throws Exception {
        ClaimableDeserializer<String> d =
                ClaimableDeserializer.of(new SimpleStringSchema()).build();
        assertEquals(
                List.of(new Claimable<>("m-1", "clicks:2:81", 1_700_000_000_123L, "{\"amount\":3}")),
                read(d, record(81, 1_700_000_000_123L, "m-1", "{\"amount\":3}")));
    }

    @Test
    void idFromAFunctionOfTheRecord() throws Exception {
        ClaimableDeserializer<String> d = ClaimableDeserializer.of(new SimpleStringSchema())
                .id(r -> new String(r.value(), StandardCharsets.UTF_8).substring(0, 3))
                .build();
        assertEquals("abc", read(d, record(1, 5_000, null, "abcdef")).get(0).getId());
    }

    @Test
    void aRecordWithoutItsHeader_failsNamingTheRecordAndTheHeader() {
        ClaimableDeserializer<String> d = ClaimableDeserializer.of(new SimpleStringSchema())
                .idFromHeader("event-id")
                .build();
        IllegalArgumentException e =
                assertThrows(IllegalArgumentException.class, () -> read(d, record(7, 5_000, "m-1", "v")));
        assertTrue(e.getMessage().contains("clicks:2:7") && e.getMessage().contains("event-id"), e.getMessage());
    }

    @Test
    void aValueTheUsersDeserializerSkips_isSkipped() throws Exception {
        ClaimableDeserializer<String> d = ClaimableDeserializer.of(new SimpleStringSchema() {
                    private static final long serialVersionUID = 1L;

                    @Override
                    public String deserialize(byte[] message) {
                        return null;
                    }
                })
                .build();
        assertEquals(List.of(), read(d, record(1, 5_000, "m-1", "v")));
    }

    @Test
    void theProducedTypeIsAPojoWhoseValueHasTheUsersType() {
        CompositeType<?> type = (CompositeType<?>)
                ClaimableDeserializer.of(new SimpleStringSchema()).build().getProducedType();
        assertTrue(type instanceof PojoTypeInfo, type.toString());
        assertEquals(Types.STRING, type.getTypeAt("value"));
        assertEquals(Types.LONG, type.getTypeAt("timestamp"));
    }
}
