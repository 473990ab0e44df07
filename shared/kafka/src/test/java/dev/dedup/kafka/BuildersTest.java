package dev.dedup.kafka;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dedup.client.Claims;
import dev.dedup.client.DedupClient;
import dev.dedup.wire.Item;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.function.Function;
import java.util.function.Supplier;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.KafkaShareConsumer;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The loops' builders: what {@code build()} refuses, and the message that names the setting. Real consumers, which
 * connect to nothing until they poll; the pipeline tests in {@code shared/examples} run the loops against a broker.
 */
class BuildersTest {

    private static final Claims CLAIMS =
            new Claims(DedupClient.create(URI.create("http://127.0.0.1:9")), "clicks", Duration.ZERO);

    private KafkaConsumer<String, byte[]> consumer;
    private KafkaShareConsumer<String, byte[]> shareConsumer;

    @BeforeEach
    void consumers() {
        Map<String, Object> config = Map.of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, "127.0.0.1:9", ConsumerConfig.GROUP_ID_CONFIG, "builders");
        consumer = new KafkaConsumer<>(config, new StringDeserializer(), new ByteArrayDeserializer());
        shareConsumer = new KafkaShareConsumer<>(config, new StringDeserializer(), new ByteArrayDeserializer());
    }

    @AfterEach
    void close() {
        consumer.close();
        shareConsumer.close();
    }

    private DedupConsumerLoop.Builder<String, byte[]> complete() {
        return DedupConsumerLoop.builder(consumer, CLAIMS)
                .topics("clicks")
                .idFromHeader("message-id")
                .sink((kept, next) -> {});
    }

    private DedupShareConsumerLoop.Builder<String, byte[]> completeShare() {
        return DedupShareConsumerLoop.builder(shareConsumer, CLAIMS)
                .topics("orders")
                .idFromHeader("message-id")
                .sink((kept, renewal) -> {});
    }

    private static void refused(String message, Supplier<?> build) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, build::get);
        assertEquals(message, e.getMessage());
    }

    @Test
    void aCompleteBuilderBuilds() {
        assertNotNull(complete().build());
        assertNotNull(
                complete().topics(List.of("clicks", "views")).eventTime(false).build());
        assertNotNull(completeShare().build());
    }

    @Test
    void missingTopics_areRefused_namingTheSetting() {
        refused(
                "DedupConsumerLoop topics: not set",
                () -> DedupConsumerLoop.builder(consumer, CLAIMS)
                        .idFromHeader("message-id")
                        .sink((kept, next) -> {})
                        .build());
        refused("DedupConsumerLoop topics: none given", () -> complete().topics());
        refused(
                "DedupShareConsumerLoop topics: an empty topic name in [orders, ]",
                () -> completeShare().topics("orders", ""));
    }

    @Test
    void noId_isRefused_sayingHowToGiveOne() {
        refused(
                "DedupConsumerLoop id: not set; give id(record -> ...) or idFromHeader(\"message-id\")",
                () -> DedupConsumerLoop.builder(consumer, CLAIMS)
                        .topics("clicks")
                        .sink((kept, next) -> {})
                        .build());
        refused(
                "DedupConsumerLoop idFromHeader: the header name is empty",
                () -> complete().idFromHeader(""));
        refused("DedupShareConsumerLoop id: null", () -> completeShare().id(null));
    }

    @Test
    void noSink_isRefused() {
        refused(
                "DedupConsumerLoop sink: not set",
                () -> DedupConsumerLoop.builder(consumer, CLAIMS)
                        .topics("clicks")
                        .idFromHeader("message-id")
                        .build());
        refused("DedupShareConsumerLoop sink: null", () -> completeShare().sink(null));
    }

    @Test
    void badValues_areRefusedWhereTheyAreSet_namingTheSettingAndTheValue() {
        refused(
                "DedupConsumerLoop pollTimeout: must be positive, got PT0S",
                () -> complete().pollTimeout(Duration.ZERO));
        refused(
                "DedupShareConsumerLoop pollTimeout: must be positive, got PT-1S",
                () -> completeShare().pollTimeout(Duration.ofSeconds(-1)));
        refused(
                "DedupConsumerLoop failureBackoff: must be zero or more, got PT-0.001S",
                () -> complete().failureBackoff(Duration.ofMillis(-1)));
        refused(
                "DedupShareConsumerLoop failureBackoff: must be zero or more, got null",
                () -> completeShare().failureBackoff(null));
        refused("DedupConsumerLoop listener: null", () -> complete().listener(null));
        refused("DedupConsumerLoop claims: null", () -> DedupConsumerLoop.builder(consumer, null));
        refused(
                "DedupShareConsumerLoop consumer: null",
                () -> DedupShareConsumerLoop.<String, byte[]>builder(null, CLAIMS));
    }

    private static ConsumerRecord<String, byte[]> record(long timestamp, String id) {
        RecordHeaders headers = new RecordHeaders();
        headers.add("message-id", id.getBytes(StandardCharsets.UTF_8));
        return new ConsumerRecord<>(
                "clicks",
                3,
                1042L,
                timestamp,
                TimestampType.CREATE_TIME,
                0,
                0,
                "user-7",
                new byte[0],
                headers,
                Optional.empty());
    }

    @Test
    void theItem_isTheHeaderTheOwnerAndTheTimestampInSeconds() {
        LoopSettings<String, byte[]> settings = fromHeader(true, Duration.ofSeconds(1));
        assertEquals(
                new Item("m-1", "clicks:3:1042", 1_700_000_000L), settings.item(record(1_700_000_000_999L, "m-1")));
        assertEquals(new Item("m-1", "clicks:3:1042"), settings.item(record(-1L, "m-1")), "no timestamp: none sent");
    }

    @Test
    void withoutEventTime_theItemHasNone() {
        LoopSettings<String, byte[]> settings = withIdFunction(r -> r.key() + "-id", false);
        assertEquals(new Item("user-7-id", "clicks:3:1042"), settings.item(record(1_700_000_000_999L, "m-1")));
    }

    @Test
    void anIdFunctionGivingNothing_isRefused_sayingWhere() {
        LoopSettings<String, byte[]> settings = withIdFunction(r -> "", true);
        IllegalArgumentException e =
                assertThrows(IllegalArgumentException.class, () -> settings.item(record(0L, "m-1")));
        assertEquals("the record at clicks:3:1042 has no id: the id function gave an empty id", e.getMessage());
    }

    @Test
    void afterASinkFailure_theLoopWaitsItsBackoff_unlessStopped() throws InterruptedException {
        LoopSettings<String, byte[]> settings = fromHeader(false, Duration.ofMillis(300));
        long start = System.nanoTime();
        settings.backOff(new CountDownLatch(1));
        assertTrue(System.nanoTime() - start >= Duration.ofMillis(300).toNanos(), "waited the backoff");
        CountDownLatch stopped = new CountDownLatch(1);
        stopped.countDown();
        start = System.nanoTime();
        settings.backOff(stopped);
        assertTrue(System.nanoTime() - start < Duration.ofMillis(300).toNanos(), "a stopped loop does not wait");
    }

    /** Settings of a consumer loop on topic clicks reading the id from the message-id header. */
    private LoopSettings<String, byte[]> fromHeader(boolean eventTime, Duration failureBackoff) {
        return new LoopSettings<>(
                "DedupConsumerLoop",
                CLAIMS,
                List.of("clicks"),
                MessageIds.fromHeader("message-id"),
                eventTime,
                Duration.ofMillis(500),
                failureBackoff);
    }

    /** The same with an id function. */
    private LoopSettings<String, byte[]> withIdFunction(
            Function<ConsumerRecord<String, byte[]>, String> idOf, boolean eventTime) {
        return new LoopSettings<>(
                "DedupConsumerLoop",
                CLAIMS,
                List.of("clicks"),
                idOf,
                eventTime,
                Duration.ofMillis(500),
                Duration.ofSeconds(1));
    }
}
