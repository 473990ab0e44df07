package dev.dedup.examples.engines;

import dev.dedup.client.Claims;
import dev.dedup.examples.flink.FlinkMember;
import dev.dedup.flink.Claimable;
import dev.dedup.flink.ClaimableDeserializer;
import dev.dedup.flink.Dedup;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import org.apache.flink.api.common.RuntimeExecutionMode;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.serialization.SimpleStringSchema;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.java.tuple.Tuple2;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.ConfigOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.configuration.StateBackendOptions;
import org.apache.flink.configuration.StateRecoveryOptions;
import org.apache.flink.connector.base.DeliveryGuarantee;
import org.apache.flink.connector.kafka.sink.KafkaRecordSerializationSchema;
import org.apache.flink.connector.kafka.sink.KafkaSink;
import org.apache.flink.connector.kafka.source.KafkaSource;
import org.apache.flink.connector.kafka.source.enumerator.initializer.OffsetsInitializer;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;

/**
 * The Flink job of the engine benchmark, in a JVM of its own so that {@link EngineRun} can {@code kill -9} it: a
 * MiniCluster of {@code parallelism} slots, a checkpoint every {@code checkpointMillis} into {@code checkpoints}, the
 * Kafka source from the earliest offsets (its group {@code input}, offsets committed when a checkpoint completes), a
 * deduplication, and Flink's transactional {@code KafkaSink} into {@code output}. Started again on the same folder,
 * it restores from the newest checkpoint there.
 *
 * <p>Arguments: {@code bootstrap input output checkpoints mode windowSeconds checkpointMillis parallelism}. Modes:
 * {@code ours}, the library's operator right after the source, claiming at the agent {@code DEDUP_URL} names, no
 * keyed state; {@code own-heap} and {@code own-rocksdb}, Flink's own: the records keyed by message id, each id's first
 * record passed on and remembered in keyed state with a TTL of the window ({@link FlinkMember.FirstOfEachId}), on the
 * heap state backend or on RocksDB with incremental checkpoints (its files under {@code checkpoints/../rocksdb}).
 * Prints {@code CHECKPOINT id=N} when a checkpoint completes.
 */
public final class FlinkBenchJob {

    public static void main(String[] args) throws Exception {
        String bootstrap = args[0];
        String input = args[1];
        String output = args[2];
        Path checkpoints = Path.of(args[3]).toAbsolutePath();
        String mode = args[4];
        Duration window = Duration.ofSeconds(Long.parseLong(args[5]));
        long checkpointMillis = Long.parseLong(args[6]);
        int parallelism = Integer.parseInt(args[7]);

        Configuration conf = new Configuration();
        conf.set(CheckpointingOptions.CHECKPOINT_STORAGE, "filesystem");
        conf.set(CheckpointingOptions.CHECKPOINTS_DIRECTORY, checkpoints.toUri().toString());
        conf.set(RestartStrategyOptions.RESTART_STRATEGY, "none"); // a failure shows as the process's exit
        if (mode.equals("own-rocksdb")) {
            conf.set(StateBackendOptions.STATE_BACKEND, "rocksdb");
            conf.set(CheckpointingOptions.INCREMENTAL_CHECKPOINTS, true);
            conf.set(
                    ConfigOptions.key("state.backend.rocksdb.localdir")
                            .stringType()
                            .noDefaultValue(),
                    checkpoints.resolveSibling("rocksdb").toString());
        } else {
            conf.set(StateBackendOptions.STATE_BACKEND, "hashmap");
        }
        Optional<Path> restore = FlinkMember.newestCheckpoint(checkpoints);
        if (restore.isPresent()) {
            conf.set(StateRecoveryOptions.SAVEPOINT_PATH, restore.get().toUri().toString());
            System.out.println("RESTORING " + restore.get());
        }
        StreamExecutionEnvironment env = StreamExecutionEnvironment.createLocalEnvironment(parallelism, conf);
        env.setRuntimeMode(RuntimeExecutionMode.STREAMING);
        env.enableCheckpointing(checkpointMillis);

        DataStream<String> kept;
        if (mode.equals("ours")) {
            KafkaSource<Claimable<String>> source = KafkaSource.<Claimable<String>>builder()
                    .setBootstrapServers(bootstrap)
                    .setTopics(input)
                    .setGroupId(input)
                    .setStartingOffsets(OffsetsInitializer.earliest())
                    .setDeserializer(
                            ClaimableDeserializer.of(new SimpleStringSchema()).build())
                    .build();
            Dedup<String> dedup =
                    Dedup.<String>builder(() -> Claims.fromEnvironment("bench")).build();
            kept = dedup.apply(env.fromSource(source, WatermarkStrategy.noWatermarks(), input)
                            .uid("source"))
                    .uid("dedup");
        } else {
            KafkaSource<Tuple2<String, String>> source = KafkaSource.<Tuple2<String, String>>builder()
                    .setBootstrapServers(bootstrap)
                    .setTopics(input)
                    .setGroupId(input)
                    .setStartingOffsets(OffsetsInitializer.earliest())
                    .setDeserializer(new FlinkMember.IdAndValue())
                    .build();
            kept = env.fromSource(source, WatermarkStrategy.noWatermarks(), input)
                    .uid("source")
                    .keyBy(idAndValue -> idAndValue.f0, Types.STRING)
                    .process(new FlinkMember.FirstOfEachId(window))
                    .uid("first-of-each-id");
        }
        kept.map(new FlinkMember.Committed())
                .uid("committed")
                .sinkTo(KafkaSink.<String>builder()
                        .setBootstrapServers(bootstrap)
                        .setRecordSerializer(KafkaRecordSerializationSchema.builder()
                                .setTopic(output)
                                .setValueSerializationSchema(new SimpleStringSchema())
                                .build())
                        .setDeliveryGuarantee(DeliveryGuarantee.EXACTLY_ONCE)
                        .setTransactionalIdPrefix(input)
                        .setProperty("transaction.timeout.ms", "60000")
                        .build())
                .uid("sink");
        env.execute(input);
    }

    private FlinkBenchJob() {}
}
