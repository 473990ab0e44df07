package dev.dedup.examples.flink;

import dev.dedup.client.Claims;
import dev.dedup.examples.testing.ChildJvm;
import dev.dedup.flink.Claimable;
import dev.dedup.flink.ClaimableDeserializer;
import dev.dedup.flink.Dedup;
import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;
import org.apache.flink.api.common.RuntimeExecutionMode;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.functions.MapFunction;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.serialization.SimpleStringSchema;
import org.apache.flink.api.common.state.CheckpointListener;
import org.apache.flink.api.common.state.StateTtlConfig;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.java.tuple.Tuple2;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.configuration.StateRecoveryOptions;
import org.apache.flink.connector.base.DeliveryGuarantee;
import org.apache.flink.connector.kafka.sink.KafkaRecordSerializationSchema;
import org.apache.flink.connector.kafka.sink.KafkaSink;
import org.apache.flink.connector.kafka.source.KafkaSource;
import org.apache.flink.connector.kafka.source.enumerator.initializer.OffsetsInitializer;
import org.apache.flink.connector.kafka.source.reader.deserializer.KafkaRecordDeserializationSchema;
import org.apache.flink.runtime.state.FunctionInitializationContext;
import org.apache.flink.runtime.state.FunctionSnapshotContext;
import org.apache.flink.streaming.api.checkpoint.CheckpointedFunction;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.KeyedProcessFunction;
import org.apache.flink.util.Collector;
import org.apache.kafka.clients.consumer.ConsumerRecord;

/**
 * A Flink job in a JVM of its own, so that a test can {@code kill -9} it: a MiniCluster (parallelism 1, a checkpoint
 * every second into a checkpoint folder), the Kafka source from the earliest offsets (committing its offsets to its
 * group {@code flink-<input>} when a checkpoint completes), the library's {@link Dedup} right after it, claiming at the
 * agent {@code DEDUP_URL} names, and Flink's transactional {@code KafkaSink} into the output topic (each kept record's
 * value, committed when a checkpoint completes). Started again on the same folder, it restores from the newest
 * checkpoint there, as a job resubmitted from its last retained checkpoint does. It runs until it is stopped: a
 * bounded {@code KafkaSource} restored into a new job never ends (FLINK-33466), so a test stops the job once its
 * group's committed offsets reach the end of the input.
 *
 * <p>Arguments: {@code bootstrap input output checkpointFolder namespace [ownDedup]}. Prints {@code CHECKPOINT id=N
 * committed=C} when a checkpoint completes ({@code C}: records this run passed to the sink before its barrier), and
 * {@code CLAIMED new=F retry=T duplicate=D committed=C} after each claim. With {@code ownDedup}, Flink's own way
 * instead, for comparison: the records keyed by message id, each id's first record passed on, kept in keyed state
 * with a TTL of 10 minutes; no claim.
 */
public final class FlinkMember {

    /** Start it with {@link #start}: on this module's test classpath, which holds Flink. */
    public static void main(String[] args) throws Exception {
        String bootstrap = args[0];
        String input = args[1];
        String output = args[2];
        Path checkpoints = Path.of(args[3]).toAbsolutePath();
        String namespace = args[4];
        boolean ownDedup = args.length > 5 && args[5].equals("ownDedup");

        Configuration conf = new Configuration();
        conf.set(CheckpointingOptions.CHECKPOINT_STORAGE, "filesystem");
        conf.set(CheckpointingOptions.CHECKPOINTS_DIRECTORY, checkpoints.toUri().toString());
        conf.set(RestartStrategyOptions.RESTART_STRATEGY, "none"); // a failure shows as the process's exit
        Optional<Path> restore = newestCheckpoint(checkpoints);
        if (restore.isPresent()) {
            conf.set(StateRecoveryOptions.SAVEPOINT_PATH, restore.get().toUri().toString());
            System.out.println("RESTORING " + restore.get());
        }
        StreamExecutionEnvironment env = StreamExecutionEnvironment.createLocalEnvironment(1, conf);
        env.setRuntimeMode(RuntimeExecutionMode.STREAMING);
        env.enableCheckpointing(1_000);

        DataStream<String> kept;
        if (ownDedup) {
            KafkaSource<Tuple2<String, String>> source = KafkaSource.<Tuple2<String, String>>builder()
                    .setBootstrapServers(bootstrap)
                    .setTopics(input)
                    .setGroupId("flink-" + input)
                    .setStartingOffsets(OffsetsInitializer.earliest())
                    .setDeserializer(new IdAndValue())
                    .build();
            kept = env.fromSource(source, WatermarkStrategy.noWatermarks(), input)
                    .uid("source")
                    .keyBy(idAndValue -> idAndValue.f0, Types.STRING)
                    .process(new FirstOfEachId(Duration.ofMinutes(10)))
                    .uid("first-of-each-id");
        } else {
            KafkaSource<Claimable<String>> source = KafkaSource.<Claimable<String>>builder()
                    .setBootstrapServers(bootstrap)
                    .setTopics(input)
                    .setGroupId("flink-" + input)
                    .setStartingOffsets(OffsetsInitializer.earliest())
                    .setDeserializer(
                            ClaimableDeserializer.of(new SimpleStringSchema()).build())
                    .build();
            Dedup<String> dedup = Dedup.<String>builder(() -> Claims.fromEnvironment(namespace))
                    .listener(new Printed())
                    .build();
            kept = dedup.apply(env.fromSource(source, WatermarkStrategy.noWatermarks(), input)
                            .uid("source"))
                    .uid("dedup");
        }
        kept.map(new Committed())
                .uid("committed")
                .sinkTo(KafkaSink.<String>builder()
                        .setBootstrapServers(bootstrap)
                        .setRecordSerializer(KafkaRecordSerializationSchema.builder()
                                .setTopic(output)
                                .setValueSerializationSchema(new SimpleStringSchema())
                                .build())
                        .setDeliveryGuarantee(DeliveryGuarantee.EXACTLY_ONCE)
                        .setTransactionalIdPrefix("flink-" + input)
                        // below the broker's transaction.max.timeout.ms (15 min); Flink's default is an hour
                        .setProperty("transaction.timeout.ms", "60000")
                        .build())
                .uid("sink");
        env.execute("flink-" + input);
    }

    /** Starts the job in a JVM on this module's test classpath (Flink, its Kafka connector, the library). */
    public static ChildJvm start(String name, Path log, List<String> args, Map<String, String> env) throws IOException {
        Path file = Path.of(System.getProperty("pipeline.flink.classpath.file", "target/test-classpath.txt"))
                .toAbsolutePath();
        String classpath = file.resolveSibling("test-classes")
                + File.pathSeparator
                + Files.readString(file).trim();
        List<String> cmd = new ArrayList<>(List.of(
                ChildJvm.javaBin(), "-Xmx384m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-cp", classpath));
        cmd.add(FlinkMember.class.getName());
        cmd.addAll(args);
        return ChildJvm.exec(name, log, cmd, env);
    }

    /** The folder of the newest checkpoint under {@code folder} whose metadata was written, if any. */
    public static Optional<Path> newestCheckpoint(Path folder) throws IOException {
        if (!Files.isDirectory(folder)) {
            return Optional.empty();
        }
        try (Stream<Path> files = Files.walk(folder)) {
            return files.filter(p -> p.getFileName().toString().equals("_metadata"))
                    .filter(p -> p.getParent().getFileName().toString().startsWith("chk-"))
                    .max(Comparator.comparingLong(p -> Long.parseLong(
                            p.getParent().getFileName().toString().substring(4))))
                    .map(Path::getParent);
        }
    }

    /** Each record's message id (the {@code message-id} header) and value, for Flink's own dedup. */
    public static final class IdAndValue implements KafkaRecordDeserializationSchema<Tuple2<String, String>> {
        private static final long serialVersionUID = 1L;

        @Override
        public void deserialize(ConsumerRecord<byte[], byte[]> record, Collector<Tuple2<String, String>> out) {
            String id = new String(record.headers().lastHeader("message-id").value(), StandardCharsets.UTF_8);
            out.collect(Tuple2.of(id, new String(record.value(), StandardCharsets.UTF_8)));
        }

        @Override
        public TypeInformation<Tuple2<String, String>> getProducedType() {
            return Types.TUPLE(Types.STRING, Types.STRING);
        }
    }

    /** Flink's own dedup: the first record of each id this job sees, remembered in keyed state for a TTL. */
    public static final class FirstOfEachId extends KeyedProcessFunction<String, Tuple2<String, String>, String> {
        private static final long serialVersionUID = 1L;
        private final Duration ttl;
        private transient ValueState<Boolean> seen;

        /** Each id remembered for {@code ttl} of processing time from its first record. */
        public FirstOfEachId(Duration ttl) {
            this.ttl = ttl;
        }

        @Override
        public void open(OpenContext context) {
            ValueStateDescriptor<Boolean> descriptor = new ValueStateDescriptor<>("seen", Types.BOOLEAN);
            descriptor.enableTimeToLive(StateTtlConfig.newBuilder(ttl).build());
            seen = getRuntimeContext().getState(descriptor);
        }

        @Override
        public void processElement(Tuple2<String, String> record, Context context, Collector<String> out)
                throws IOException {
            if (seen.value() == null) {
                seen.update(true);
                out.collect(record.f1);
            }
        }
    }

    /** Prints each claim's verdicts. */
    static final class Printed implements Dedup.Listener {
        private static final long serialVersionUID = 1L;

        @Override
        public void claimed(int fresh, int retried, int duplicates) {
            System.out.println("CLAIMED new=" + fresh + " retry=" + retried + " duplicate=" + duplicates + " committed="
                    + Committed.COMMITTED.get());
        }
    }

    /**
     * Passes records on, counting them, and prints when a checkpoint completes how many it had passed before that
     * checkpoint's barrier: the sink commits those with the checkpoint.
     */
    public static final class Committed
            implements MapFunction<String, String>, CheckpointedFunction, CheckpointListener {
        private static final long serialVersionUID = 1L;
        static final AtomicLong PASSED = new AtomicLong();
        static final AtomicLong COMMITTED = new AtomicLong();
        private final Map<Long, Long> atBarrier = new ConcurrentHashMap<>();

        @Override
        public String map(String value) {
            PASSED.incrementAndGet();
            return value;
        }

        @Override
        public void snapshotState(FunctionSnapshotContext context) {
            atBarrier.put(context.getCheckpointId(), PASSED.get());
        }

        @Override
        public void initializeState(FunctionInitializationContext context) {}

        @Override
        public void notifyCheckpointComplete(long checkpointId) {
            Long passed = atBarrier.remove(checkpointId);
            if (passed != null) {
                COMMITTED.set(passed);
                System.out.println("CHECKPOINT id=" + checkpointId + " committed=" + passed);
            }
        }
    }

    private FlinkMember() {}
}
