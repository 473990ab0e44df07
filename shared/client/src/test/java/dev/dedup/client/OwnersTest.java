package dev.dedup.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

/**
 * The owners' exact strings. The Python client's {@code tests/test_owners.py} asserts the same strings for the same
 * values, so that Java and Python workers of one namespace agree.
 */
class OwnersTest {

    private static final String SEQUENCE = "49590338271490256608559692538361571095921575989136588898";
    private static final String UUID = "550e8400-e29b-41d4-a716-446655440000";

    @Test
    void kafka_isTopicPartitionOffset() {
        assertEquals("clicks:3:81418110694", Owners.kafka("clicks", 3, 81418110694L));
        assertEquals("a.b_c-D9:0:0", Owners.kafka("a.b_c-D9", 0, 0));
    }

    @Test
    void kafka_theSameRecordInAnotherTopic_hasAnotherOwner() {
        assertNotEquals(Owners.kafka("clicks", 3, 5), Owners.kafka("clicks-retry", 3, 5));
    }

    @Test
    void kafka_atTheContractsLimit_staysReadable_andOneByteMoreIsADigest() {
        String longest = "a".repeat(97) + ":2147483647:9223372036854775807";
        assertEquals(128, longest.length());
        assertEquals(longest, Owners.kafka("a".repeat(97), Integer.MAX_VALUE, Long.MAX_VALUE));
        assertEquals(
                "#2de14cb6652aa6695b3898998988b543", Owners.kafka("a".repeat(98), Integer.MAX_VALUE, Long.MAX_VALUE));
    }

    @Test
    void kafka_theLongestTopicName_isADigest_theSameEveryTime() {
        assertEquals("#33d4695856670986c650aaf25dd6ca16", Owners.kafka("x".repeat(249), 3, 42));
        assertEquals(Owners.kafka("x".repeat(249), 3, 42), Owners.kafka("x".repeat(249), 3, 42));
        assertNotEquals(Owners.kafka("x".repeat(249), 3, 42), Owners.kafka("x".repeat(249), 3, 43));
    }

    @Test
    void kafka_whatNoKafkaRecordHas_isRefused_namingTheParameter() {
        assertRefused("topic: \"\" is not a Kafka topic name", () -> Owners.kafka("", 0, 0));
        assertRefused("topic: \"clicks:3\" is not", () -> Owners.kafka("clicks:3", 0, 0));
        assertRefused("topic: \"a b\" is not", () -> Owners.kafka("a b", 0, 0));
        assertRefused("topic: \"xxxxx", () -> Owners.kafka("x".repeat(250), 0, 0));
        assertRefused("topic: \"cl\u00e9s\" is not", () -> Owners.kafka("cl\u00e9s", 0, 0));
        assertRefused("partition: -1 is negative", () -> Owners.kafka("clicks", -1, 0));
        assertRefused("offset: -5 is negative", () -> Owners.kafka("clicks", 0, -5));
        NullPointerException npe = assertThrows(NullPointerException.class, () -> Owners.kafka(null, 0, 0));
        assertEquals("topic", npe.getMessage());
    }

    @Test
    void kinesis_isStreamShardSequence() {
        assertEquals(
                "orders:shardId-000000000003:" + SEQUENCE, Owners.kinesis("orders", "shardId-000000000003", SEQUENCE));
        assertEquals("s:shardId-000000000000:0", Owners.kinesis("s", "shardId-000000000000", "0"));
    }

    @Test
    void kinesis_anAggregatedUserRecord_addsItsSubSequenceNumber_unlessZero() {
        assertEquals(
                "orders:shardId-000000000003:" + SEQUENCE + ":7",
                Owners.kinesis("orders", "shardId-000000000003", SEQUENCE, 7));
        assertEquals(
                Owners.kinesis("orders", "shardId-000000000003", SEQUENCE),
                Owners.kinesis("orders", "shardId-000000000003", SEQUENCE, 0));
    }

    @Test
    void kinesis_theLongestSequenceNumber_inALongStream_isADigest() {
        String sequence = "9".repeat(129);
        String owner = Owners.kinesis("orders", "shardId-000000000003", sequence);
        assertTrue(owner.matches("#[0-9a-f]{32}"), owner);
        assertEquals(Owners.fit("orders:shardId-000000000003:" + sequence), owner);
    }

    @Test
    void kinesis_whatNoKinesisRecordHas_isRefused_namingTheParameter() {
        assertRefused(
                "stream: \"arn:aws:kinesis:us-east-1:123456789012:stream/orders\" is not a Kinesis stream name",
                () -> Owners.kinesis("arn:aws:kinesis:us-east-1:123456789012:stream/orders", "shardId-1", "1"));
        assertRefused("stream: \"\" is not", () -> Owners.kinesis("", "shardId-1", "1"));
        assertRefused("shardId: \"\" is not a Kinesis shard id", () -> Owners.kinesis("s", "", "1"));
        assertRefused("sequenceNumber: \"007\" is not", () -> Owners.kinesis("s", "shardId-1", "007"));
        assertRefused("sequenceNumber: \"12a\" is not", () -> Owners.kinesis("s", "shardId-1", "12a"));
        assertRefused("sequenceNumber: \"-1\" is not", () -> Owners.kinesis("s", "shardId-1", "-1"));
        assertRefused("sequenceNumber: \"11111", () -> Owners.kinesis("s", "shardId-1", "1".repeat(130)));
        assertRefused("subSequenceNumber: -1 is negative", () -> Owners.kinesis("s", "shardId-1", "1", -1));
        assertThrows(NullPointerException.class, () -> Owners.kinesis("s", null, "1"));
    }

    @Test
    void sqs_isTheMessageId() {
        assertEquals(UUID, Owners.sqs(UUID));
    }

    @Test
    void sqs_aReceiptHandle_isRefused() {
        String receiptHandle = "AQEBwJnKyrHigUMZj6rYigCgxlaS3SLy0a+Fz6QWt5uTdyKYx2Xf0PdUWvWz5c8fg7/Bp0Hq4Q5Q0n"
                + "Bf6LxbWMjmrdqsLoYv2jVkd3sPKeh1kOhLgjrOvD5o7lTwKdOsw4CBF2bz6gJSqJw1Y9Vj9ZzKIdTyaU8B1g==";
        assertRefused(
                "messageId: \"AQEBwJnKyrHigUMZj6rYigCgxlaS3SLy0a+Fz6QW...\" (164 characters) is not an SQS MessageId",
                () -> Owners.sqs(receiptHandle));
        assertRefused("messageId: \"\" is not", () -> Owners.sqs(""));
        assertRefused("messageId: \"a:b\" is not", () -> Owners.sqs("a:b"));
        assertRefused("messageId: \"xxxx", () -> Owners.sqs("x".repeat(101)));
    }

    @Test
    void rabbitMq_isQueueAndPublishId() {
        assertEquals("orders:" + UUID, Owners.rabbitMq("orders", UUID));
        assertEquals("amq.gen-1:x", Owners.rabbitMq("amq.gen-1", "x"));
        assertEquals("a:b:c", Owners.rabbitMq("a:b", "c"), "a queue name may hold ':'; a publish id may not");
        assertNotEquals(Owners.rabbitMq("orders", UUID), Owners.rabbitMq("orders-audit", UUID));
    }

    @Test
    void rabbitMq_aLongQueueName_isADigest_countingUtf8Bytes() {
        assertEquals("#0dad8d8d04e33a954014a32904f1fb32", Owners.rabbitMq("q".repeat(100), UUID));
        String fits = "\u00e9".repeat(63) + ":x"; // 128 bytes
        assertEquals(128, fits.getBytes(StandardCharsets.UTF_8).length);
        assertEquals(fits, Owners.rabbitMq("\u00e9".repeat(63), "x"));
        assertEquals("#522ff354c3a5abbcaeebb72e5cc25154", Owners.rabbitMq("\u00e9".repeat(64), "x"));
    }

    @Test
    void rabbitMq_whatIsNotAQueueOrAPublishId_isRefused() {
        assertRefused("queue: 0 UTF-8 bytes; a RabbitMQ queue name has 1 to 255", () -> Owners.rabbitMq("", UUID));
        assertRefused("queue: 256 UTF-8 bytes", () -> Owners.rabbitMq("\u00e9".repeat(128), UUID));
        assertRefused("publishId: \"\" is not a publish id", () -> Owners.rabbitMq("orders", ""));
        assertRefused("publishId: \"7:8\" is not", () -> Owners.rabbitMq("orders", "7:8"));
        assertRefused("publishId: \"xxxx", () -> Owners.rabbitMq("orders", "x".repeat(129)));
        assertThrows(NullPointerException.class, () -> Owners.rabbitMq("orders", null));
    }

    @Test
    void rabbitMqStream_isStreamAndOffset() {
        assertEquals("events:0", Owners.rabbitMqStream("events", 0));
        assertEquals("events:9223372036854775807", Owners.rabbitMqStream("events", Long.MAX_VALUE));
        assertRefused("offset: -1 is negative", () -> Owners.rabbitMqStream("events", -1));
        assertRefused("stream: 0 UTF-8 bytes", () -> Owners.rabbitMqStream("", 1));
    }

    private static void assertRefused(String messageStart, Executable call) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, call);
        assertTrue(e.getMessage().startsWith(messageStart), e.getMessage());
    }
}
