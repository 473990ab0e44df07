package dev.dedup.examples.flink.docs;

import dev.dedup.client.Claims;
import dev.dedup.flink.Claimable;
import dev.dedup.flink.ClaimableDeserializer;
import dev.dedup.flink.Dedup;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.serialization.SimpleStringSchema;
import org.apache.flink.connector.base.DeliveryGuarantee;
import org.apache.flink.connector.kafka.sink.KafkaRecordSerializationSchema;
import org.apache.flink.connector.kafka.sink.KafkaSink;
import org.apache.flink.connector.kafka.source.KafkaSource;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;

/** The Java blocks of docs/flink.md, compiled (DocsCodeBlocksTest finds them in any source under shared). */
final class FlinkSnippets {

    static void job(StreamExecutionEnvironment env) {
        env.enableCheckpointing(10_000); // a restored job claims again from its last checkpoint
        KafkaSource<Claimable<String>> source = KafkaSource.<Claimable<String>>builder()
                .setBootstrapServers("kafka:9092")
                .setTopics("clicks")
                .setGroupId("clicks-dedup")
                .setDeserializer(
                        ClaimableDeserializer.of(new SimpleStringSchema()).build()) // id: message-id header
                .build();
        Dedup<String> dedup =
                Dedup.<String>builder(() -> Claims.fromEnvironment("clicks")).build();
        DataStream<String> unique = dedup.apply(env.fromSource(source, WatermarkStrategy.noWatermarks(), "clicks"))
                .uid("dedup");
        unique.sinkTo(KafkaSink.<String>builder()
                .setBootstrapServers("kafka:9092")
                .setRecordSerializer(KafkaRecordSerializationSchema.builder()
                        .setTopic("clicks-unique")
                        .setValueSerializationSchema(new SimpleStringSchema())
                        .build())
                .setDeliveryGuarantee(DeliveryGuarantee.EXACTLY_ONCE) // a transaction per checkpoint
                .setTransactionalIdPrefix("clicks-dedup")
                .build());
    }

    private FlinkSnippets() {}
}
