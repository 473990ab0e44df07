package dev.dedup.examples.flink;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dedup.client.Claims;
import dev.dedup.client.DedupClient;
import dev.dedup.examples.sink.Event;
import dev.dedup.examples.testing.Services;
import dev.dedup.examples.testing.Traffic;
import dev.dedup.flink.Claimable;
import dev.dedup.flink.ClaimableDeserializer;
import dev.dedup.flink.Dedup;
import java.net.URI;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.stream.Collectors;
import org.apache.flink.api.common.JobExecutionResult;
import org.apache.flink.api.common.RuntimeExecutionMode;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.functions.MapFunction;
import org.apache.flink.api.common.serialization.SimpleStringSchema;
import org.apache.flink.api.common.state.CheckpointListener;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.connector.base.DeliveryGuarantee;
import org.apache.flink.connector.kafka.sink.KafkaRecordSerializationSchema;
import org.apache.flink.connector.kafka.sink.KafkaSink;
import org.apache.flink.connector.kafka.source.KafkaSource;
import org.apache.flink.connector.kafka.source.enumerator.initializer.OffsetsInitializer;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The library's Flink operator ({@code dedup-flink}) against a real KRaft broker and the agent jar: a Flink job on a
 * MiniCluster (parallelism 2, a checkpoint every 500 ms) reads a topic whose messages have copies at other offsets
 * while it is being written, deduplicates, and writes to Kafka with Flink's transactional {@code KafkaSink}. A map
 * after the operator throws once, mid-stream, after a checkpoint: the job restores from that checkpoint, reads the
 * records after it again, and the ones claimed before the failure answer {@code RETRY}. A {@code read_committed}
 * reader of the output finds each message once.
 */
class FlinkDedupIT {

    private static final int PARTITIONS = 3;

    @RegisterExtension
    static final Services kafka = Services.kafka("flink").withAgent();

    @Test
    void jobFailsOnceMidStream_restoresFromItsCheckpoint_outputEachMessageOnce() throws Exception {
        String input = "flink-clicks";
        String output = "flink-clicks-unique";
        kafka.broker().createTopic(input, PARTITIONS);
        kafka.broker().createTopic(output, 1);
        Traffic traffic = Traffic.generate(1_500, PARTITIONS, 43);
        // The source stops where the traffic ends: one record per copy on each partition of a new topic.
        Map<TopicPartition, Long> end = new HashMap<>();
        for (Traffic.Copy c : traffic.copies()) {
            end.merge(new TopicPartition(input, c.partition()), 1L, Long::sum);
        }

        Configuration conf = new Configuration();
        conf.set(RestartStrategyOptions.RESTART_STRATEGY, "fixed-delay");
        conf.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_ATTEMPTS, 3);
        conf.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_DELAY, Duration.ofMillis(200));
        StreamExecutionEnvironment env = StreamExecutionEnvironment.createLocalEnvironment(2, conf);
        env.setRuntimeMode(RuntimeExecutionMode.STREAMING);
        env.enableCheckpointing(500);

        KafkaSource<Claimable<String>> source = KafkaSource.<Claimable<String>>builder()
                .setBootstrapServers(kafka.broker().bootstrap())
                .setTopics(input)
                .setGroupId("flink-dedup")
                .setStartingOffsets(OffsetsInitializer.earliest())
                .setBounded(OffsetsInitializer.offsets(end))
                .setDeserializer(
                        ClaimableDeserializer.of(new SimpleStringSchema()).build())
                .build();
        String url = kafka.agent().uri().toString();
        Dedup<String> dedup = Dedup.<String>builder(
                        () -> new Claims(DedupClient.create(URI.create(url)), "flink", Claims.DEFAULT_PATIENCE))
                .listener(new Counts())
                .build();
        KafkaSink<String> sink = KafkaSink.<String>builder()
                .setBootstrapServers(kafka.broker().bootstrap())
                .setRecordSerializer(KafkaRecordSerializationSchema.builder()
                        .setTopic(output)
                        .setValueSerializationSchema(new SimpleStringSchema())
                        .build())
                .setDeliveryGuarantee(DeliveryGuarantee.EXACTLY_ONCE)
                .setTransactionalIdPrefix("flink-dedup")
                // below the broker's transaction.max.timeout.ms (15 min); Flink's default is an hour
                .setProperty("transaction.timeout.ms", "60000")
                .build();

        dedup.apply(env.fromSource(source, WatermarkStrategy.noWatermarks(), "clicks"))
                .uid("dedup")
                .map(new FailOnceAfterCheckpoint(300))
                .uid("fail-once")
                .sinkTo(sink)
                .uid("sink");

        JobClient job = env.executeAsync("flink-dedup-it");
        // Written while the job runs (over 6 s), so that checkpoints complete mid-stream.
        CompletableFuture<Integer> written = CompletableFuture.supplyAsync(
                () -> traffic.produce(kafka.broker().bootstrap(), input, Duration.ofSeconds(6)));
        assertEquals(traffic.copies().size(), written.get(60, TimeUnit.SECONDS));
        JobExecutionResult result = job.getJobExecutionResult().get(90, TimeUnit.SECONDS);
        assertTrue(result.getNetRuntime() > 0);

        System.out.printf(
                "FlinkDedupIT: %d records, verdicts new=%d retry=%d duplicate=%d%n",
                traffic.copies().size(), Counts.NEW.sum(), Counts.RETRY.sum(), Counts.DUPLICATE.sum());
        assertTrue(FailOnceAfterCheckpoint.FAILED.get(), "the job failed once mid-stream");
        assertEquals(traffic.messages().size(), Counts.NEW.sum(), "each message new once, over both attempts");
        assertTrue(Counts.RETRY.sum() > 0, "records claimed before the failure answered retry after the restore");
        assertTrue(Counts.DUPLICATE.sum() > 0, "copies were dropped");

        Map<String, String> idOfValue = traffic.messages().stream()
                .collect(Collectors.toMap(m -> Event.value(m.app(), m.eventMillis(), m.amount()), m -> m.id()));
        assertEquals(traffic.messages().size(), idOfValue.size(), "each message's value is its own");
        Map<String, Integer> seen = kafka.broker()
                .committedCounts(output, r -> new String(r.value(), java.nio.charset.StandardCharsets.UTF_8));
        assertEquals(idOfValue.keySet(), seen.keySet(), "every message, none unknown");
        Map<String, Integer> twice = seen.entrySet().stream()
                .filter(e -> e.getValue() != 1)
                .collect(Collectors.toMap(e -> idOfValue.get(e.getKey()), Map.Entry::getValue));
        assertEquals(Map.of(), twice, "each message once, across the failure and the restore");
    }

    /** The verdicts the operator reported, over every subtask and attempt (the MiniCluster runs in this JVM). */
    static final class Counts implements Dedup.Listener {
        private static final long serialVersionUID = 1L;
        static final LongAdder NEW = new LongAdder();
        static final LongAdder RETRY = new LongAdder();
        static final LongAdder DUPLICATE = new LongAdder();

        @Override
        public void claimed(int fresh, int retried, int duplicates) {
            NEW.add(fresh);
            RETRY.add(retried);
            DUPLICATE.add(duplicates);
        }
    }

    /**
     * Throws once, in the whole job, at the first record after a checkpoint completed and after {@code after} records
     * of its subtask: the records the operator claimed since that checkpoint are then claimed again.
     */
    static final class FailOnceAfterCheckpoint implements MapFunction<String, String>, CheckpointListener {
        private static final long serialVersionUID = 1L;
        static final AtomicBoolean FAILED = new AtomicBoolean();
        private final long after;
        private final AtomicLong seen = new AtomicLong();
        private volatile boolean checkpointed;

        FailOnceAfterCheckpoint(long after) {
            this.after = after;
        }

        @Override
        public String map(String value) {
            if (seen.incrementAndGet() > after && checkpointed && FAILED.compareAndSet(false, true)) {
                throw new IllegalStateException("failing once, as a task manager would, to test the restore");
            }
            return value;
        }

        @Override
        public void notifyCheckpointComplete(long checkpointId) {
            checkpointed = true;
        }
    }
}
