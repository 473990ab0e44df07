package dev.dedup.spark;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dedup.client.Owners;
import dev.dedup.wire.Item;
import dev.dedup.wire.Limits;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.junit.jupiter.api.Test;

/** What a task reads from a row, on rows as Spark's Kafka and Kinesis sources give them; no Spark session. */
class RowReaderTest {

    /**
     * A Kafka source row read with includeHeaders: key, value, topic, partition, offset, timestamp, headers (a Scala
     * sequence, as Spark gives arrays).
     */
    private static Row kafkaRow(int partition, long offset, Row... headers) {
        return RowFactory.create(
                "user-7".getBytes(StandardCharsets.UTF_8),
                "v".getBytes(StandardCharsets.UTF_8),
                "clicks",
                partition,
                offset,
                new java.sql.Timestamp(1_700_000_000_000L),
                headers.length == 0 ? null : scala.jdk.javaapi.CollectionConverters.asScala(List.of(headers)));
    }

    private static Row header(String key, String value) {
        return RowFactory.create(key, value == null ? null : value.getBytes(StandardCharsets.UTF_8));
    }

    private static RowReader kafkaHeader(String header, int eventTimeIndex) {
        return new RowReader(
                header,
                "header " + header,
                6,
                RowReader.OwnerKind.KAFKA,
                new int[] {2, 3, 4},
                new String[] {"topic", "partition", "offset"},
                eventTimeIndex);
    }

    /**
     * A reader of rows whose owner is in columns 0 to 2 ({@code ownerColumns} naming them) and whose id is column 3
     * ({@code idColumn}); the event time in column {@code eventTimeIndex}, or none for -1.
     */
    private static RowReader columnReader(
            String idColumn, RowReader.OwnerKind kind, int eventTimeIndex, String... ownerColumns) {
        return new RowReader(null, "column " + idColumn, 3, kind, new int[] {0, 1, 2}, ownerColumns, eventTimeIndex);
    }

    @Test
    void aKafkaRow_isClaimedByTheLastHeaderOfItsName_ownedAsOwnersWritesIt() {
        Row r = kafkaRow(
                3, 81418110694L, header("message-id", "first"), header("trace", "x"), header("message-id", "m-1"));

        Item item = kafkaHeader("message-id", -1).item(r);

        assertEquals("m-1", item.id());
        assertEquals(Owners.kafka("clicks", 3, 81418110694L), item.owner());
        assertEquals("clicks:3:81418110694", item.owner());
        assertEquals(Limits.NO_EVENT_TIME, item.eventSecond());
    }

    @Test
    void aRecordWithoutTheHeader_failsNamingTheHeaderAndTheRecord() {
        IllegalArgumentException e = assertThrows(
                IllegalArgumentException.class,
                () -> kafkaHeader("message-id", -1).item(kafkaRow(1, 7, header("trace", "x"))));
        assertTrue(e.getMessage().contains("header message-id"), e.getMessage());
        assertTrue(e.getMessage().contains("clicks:1:7"), e.getMessage());

        e = assertThrows(
                IllegalArgumentException.class,
                () -> kafkaHeader("message-id", -1).item(kafkaRow(1, 8, header("message-id", ""))));
        assertTrue(e.getMessage().contains("clicks:1:8"), e.getMessage());

        e = assertThrows(
                IllegalArgumentException.class,
                () -> kafkaHeader("message-id", -1).item(kafkaRow(1, 9)));
        assertTrue(e.getMessage().contains("no (or an empty) header message-id"), e.getMessage());
    }

    @Test
    void anIdColumn_andAnEventSecondColumn_areRead() {
        // the caller's columns, then the transform's: id, event second
        Row r = RowFactory.create("clicks", 2, 40L, "txn-9", 1_700_000_001L);
        RowReader reader = columnReader("txid", RowReader.OwnerKind.KAFKA, 4, "t", "p", "o");

        Item item = reader.item(r);

        assertEquals(new Item("txn-9", "clicks:2:40", 1_700_000_001L).toString(), item.toString());
    }

    @Test
    void aNullIdOrOwnerPart_failsNamingTheColumn() {
        RowReader reader = columnReader("txid", RowReader.OwnerKind.KAFKA, -1, "t", "p", "o");

        IllegalArgumentException e = assertThrows(
                IllegalArgumentException.class, () -> reader.item(RowFactory.create("clicks", 2, 40L, null)));
        assertTrue(
                e.getMessage().contains("no id in column txid")
                        && e.getMessage().contains("clicks:2:40"),
                e.getMessage());

        e = assertThrows(
                IllegalArgumentException.class, () -> reader.item(RowFactory.create("clicks", null, 40L, "id")));
        assertTrue(e.getMessage().contains("no p (null)"), e.getMessage());
    }

    @Test
    void aKinesisRow_isOwnedByStreamShardAndSequence() {
        Row r = RowFactory.create(
                "orders", "shardId-000000000003", "49590338271490256608559692538361571095921575989136588898", "m");
        RowReader reader = columnReader("id", RowReader.OwnerKind.KINESIS, -1, "stream", "shardId", "sequenceNumber");

        assertEquals(
                Owners.kinesis(
                        "orders", "shardId-000000000003", "49590338271490256608559692538361571095921575989136588898"),
                reader.item(r).owner());
    }

    @Test
    void anEventTimeOutOfRange_failsNamingTheRecord() {
        Row r = kafkaRow(0, 1, header("message-id", "m"));
        Row withSecond = RowFactory.create(r.get(0), r.get(1), r.get(2), r.get(3), r.get(4), r.get(5), r.get(6), -5L);

        IllegalArgumentException e = assertThrows(
                IllegalArgumentException.class,
                () -> kafkaHeader("message-id", 7).item(withSecond));
        assertTrue(e.getMessage().contains("clicks:0:1") && e.getMessage().contains("-5"), e.getMessage());
    }
}
