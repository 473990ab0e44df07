package dev.dedup.examples.testing;

import dev.dedup.kafka.MessageIds;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;

/**
 * A real single-node KRaft broker (broker and controller in one process) in a JVM of its own, on free loopback
 * ports, with its log directory under the test's temp dir; share groups on (KIP-932), short session timeouts and
 * short record locks so that faults play out in seconds. Formatted with {@code kafka.tools.StorageTool}, run with
 * {@code kafka.Kafka}, stopped by its PID.
 */
public final class KafkaBroker implements AutoCloseable {

    /** The share groups' default acquisition lock, short so that a stalled member loses its records in seconds. */
    public static final Duration RECORD_LOCK = Duration.ofSeconds(4);
    /** How soon a consumer or share member that stopped heartbeating is fenced. */
    public static final Duration SESSION_TIMEOUT = Duration.ofSeconds(6);

    private final ChildJvm process;
    private final String bootstrap;
    private final Admin admin;

    private KafkaBroker(ChildJvm process, String bootstrap) {
        this.process = process;
        this.bootstrap = bootstrap;
        Properties p = new Properties();
        p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        this.admin = Admin.create(p);
    }

    public static KafkaBroker start(Path dir) throws IOException, InterruptedException {
        return start(dir, Map.of());
    }

    /**
     * A broker with {@code overrides} on top of the settings above, e.g. {@code group.share.delivery.count.limit}
     * (a broker setting: no group can lower it).
     */
    public static KafkaBroker start(Path dir, Map<String, String> overrides) throws IOException, InterruptedException {
        Files.createDirectories(dir);
        int port = PortAllocator.freePort();
        int controllerPort = PortAllocator.freePort();
        Path config = dir.resolve("server.properties");
        Files.writeString(
                config,
                String.join(
                        "\n",
                        List.of(
                                "process.roles=broker,controller",
                                "node.id=1",
                                "controller.quorum.voters=1@127.0.0.1:" + controllerPort,
                                "listeners=PLAINTEXT://127.0.0.1:" + port + ",CONTROLLER://127.0.0.1:" + controllerPort,
                                "advertised.listeners=PLAINTEXT://127.0.0.1:" + port,
                                "controller.listener.names=CONTROLLER",
                                "inter.broker.listener.name=PLAINTEXT",
                                "listener.security.protocol.map=PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT",
                                "log.dirs=" + dir.resolve("data"),
                                "auto.create.topics.enable=false",
                                "num.partitions=1",
                                "offsets.topic.replication.factor=1",
                                "offsets.topic.num.partitions=3",
                                "transaction.state.log.replication.factor=1",
                                "transaction.state.log.min.isr=1",
                                "transaction.state.log.num.partitions=3",
                                "share.coordinator.state.topic.replication.factor=1",
                                "share.coordinator.state.topic.min.isr=1",
                                "share.coordinator.state.topic.num.partitions=3",
                                "group.initial.rebalance.delay.ms=0",
                                "group.consumer.min.session.timeout.ms=" + SESSION_TIMEOUT.toMillis(),
                                "group.consumer.session.timeout.ms=" + SESSION_TIMEOUT.toMillis(),
                                "group.consumer.min.heartbeat.interval.ms=500",
                                "group.consumer.heartbeat.interval.ms=1000",
                                "group.share.min.session.timeout.ms=" + SESSION_TIMEOUT.toMillis(),
                                "group.share.session.timeout.ms=" + SESSION_TIMEOUT.toMillis(),
                                "group.share.min.heartbeat.interval.ms=500",
                                "group.share.heartbeat.interval.ms=1000",
                                "group.share.min.record.lock.duration.ms=1000",
                                "group.share.record.lock.duration.ms=" + RECORD_LOCK.toMillis(),
                                overrides.entrySet().stream()
                                        .map(e -> e.getKey() + "=" + e.getValue())
                                        .collect(Collectors.joining("\n")),
                                "")));
        Files.writeString(
                dir.resolve("log4j2.properties"),
                String.join(
                        "\n",
                        List.of(
                                "rootLogger.level=WARN",
                                "rootLogger.appenderRef.out.ref=out",
                                "appender.out.type=Console",
                                "appender.out.name=out",
                                "appender.out.layout.type=PatternLayout",
                                "appender.out.layout.pattern=[%d] %p %m (%c)%n",
                                "")));
        List<String> jvm = List.of(
                "-Xms64m",
                "-Xmx384m",
                "-XX:+UseSerialGC",
                "-XX:TieredStopAtLevel=1",
                "-Dlog4j2.configurationFile=" + dir.resolve("log4j2.properties"),
                "-Dlog4j.configuration=file:" + dir.resolve("log4j2.properties"));
        ChildJvm format = ChildJvm.start(
                "kafka-storage format",
                dir.resolve("format.log"),
                jvm,
                "kafka.tools.StorageTool",
                List.of(
                        "format",
                        "-t",
                        Uuid.randomUuid().toString(),
                        "-c",
                        config.toString(),
                        "--feature",
                        "share.version=1"));
        if (format.awaitExit(Duration.ofSeconds(60)) != 0) {
            throw new IllegalStateException("kafka-storage format failed:\n" + format.output());
        }
        ChildJvm broker = ChildJvm.start(
                "kafka broker", dir.resolve("broker.log"), jvm, "kafka.Kafka", List.of(config.toString()));
        KafkaBroker b = new KafkaBroker(broker, "127.0.0.1:" + port);
        b.awaitReady(Duration.ofSeconds(90));
        return b;
    }

    private void awaitReady(Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        Exception last = null;
        while (System.nanoTime() < deadline) {
            if (!process.isAlive()) {
                throw new IllegalStateException("broker exited:\n" + process.tail());
            }
            try {
                admin.describeCluster().nodes().get(5, TimeUnit.SECONDS);
                return;
            } catch (ExecutionException | java.util.concurrent.TimeoutException e) {
                last = e;
                Thread.sleep(200);
            }
        }
        throw new IllegalStateException("broker not ready after " + timeout + ": " + last + "\n" + process.tail());
    }

    public String bootstrap() {
        return bootstrap;
    }

    public Admin admin() {
        return admin;
    }

    public long pid() {
        return process.pid();
    }

    public void createTopic(String topic, int partitions) throws Exception {
        admin.createTopics(List.of(new NewTopic(topic, partitions, (short) 1)))
                .all()
                .get(30, TimeUnit.SECONDS);
    }

    /** The end offset of every partition of {@code topic}. */
    public Map<TopicPartition, Long> endOffsets(String topic, int partitions) throws Exception {
        List<TopicPartition> tps = new ArrayList<>();
        for (int p = 0; p < partitions; p++) {
            tps.add(new TopicPartition(topic, p));
        }
        return admin
                .listOffsets(tps.stream().collect(Collectors.toMap(tp -> tp, tp -> OffsetSpec.latest())))
                .all()
                .get(30, TimeUnit.SECONDS)
                .entrySet()
                .stream()
                .collect(Collectors.toMap(Map.Entry::getKey, e -> e.getValue().offset()));
    }

    /**
     * Per message id (the {@code message-id} header), how many records of a one-partition {@code topic} a {@code
     * read_committed} reader finds: what a transactional writer committed, aborted attempts left out.
     */
    public Map<String, Integer> committedMessageIds(String topic) {
        return committedCounts(topic, r -> MessageIds.header(r, MessageIds.DEFAULT_HEADER));
    }

    /** Per {@code key} of a record, how many records of a one-partition {@code topic} a {@code read_committed} reader finds. */
    public Map<String, Integer> committedCounts(
            String topic, java.util.function.Function<ConsumerRecord<String, byte[]>, String> key) {
        Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        Map<String, Integer> seen = new java.util.HashMap<>();
        try (KafkaConsumer<String, byte[]> reader =
                new KafkaConsumer<>(p, new StringDeserializer(), new ByteArrayDeserializer())) {
            TopicPartition tp = new TopicPartition(topic, 0);
            reader.assign(List.of(tp));
            reader.seekToBeginning(List.of(tp));
            long end = reader.endOffsets(List.of(tp)).get(tp);
            long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            while (reader.position(tp) < end && System.nanoTime() < deadline) {
                for (ConsumerRecord<String, byte[]> r : reader.poll(Duration.ofMillis(200))) {
                    seen.merge(key.apply(r), 1, Integer::sum);
                }
            }
        }
        return seen;
    }

    /** The offsets {@code group} committed. */
    public Map<TopicPartition, OffsetAndMetadata> committed(String group) throws Exception {
        return admin.listConsumerGroupOffsets(group)
                .partitionsToOffsetAndMetadata()
                .get(30, TimeUnit.SECONDS);
    }

    /**
     * Per partition {@code group} has committed (its inputs, a Kafka Streams application's repartition topics), how
     * many records its committed offset is behind the partition's end; empty when it is behind on none.
     */
    public Map<TopicPartition, Long> behind(String group) throws Exception {
        Map<TopicPartition, OffsetAndMetadata> committed = committed(group);
        var ends = admin.listOffsets(
                        committed.keySet().stream().collect(Collectors.toMap(tp -> tp, tp -> OffsetSpec.latest())))
                .all()
                .get(30, TimeUnit.SECONDS);
        Map<TopicPartition, Long> behind = new java.util.HashMap<>();
        committed.forEach((tp, offset) -> {
            long end = ends.get(tp).offset();
            long at = offset == null ? 0 : offset.offset();
            if (at < end) {
                behind.put(tp, end - at);
            }
        });
        return behind;
    }

    /** Whether {@code group} has committed the end of every partition of {@code end}. */
    public static boolean caughtUp(Map<TopicPartition, OffsetAndMetadata> committed, Map<TopicPartition, Long> end) {
        return end.entrySet().stream()
                .allMatch(e -> committed.containsKey(e.getKey())
                        && committed.get(e.getKey()).offset() >= e.getValue());
    }

    /** Sets dynamic configurations of a group (e.g. a share group's {@code share.auto.offset.reset}). */
    public void configureGroup(String group, Map<String, String> configs) throws Exception {
        ConfigResource resource = new ConfigResource(ConfigResource.Type.GROUP, group);
        Collection<AlterConfigOp> ops = configs.entrySet().stream()
                .map(e -> new AlterConfigOp(new ConfigEntry(e.getKey(), e.getValue()), AlterConfigOp.OpType.SET))
                .toList();
        admin.incrementalAlterConfigs(Map.of(resource, ops)).all().get(30, TimeUnit.SECONDS);
    }

    @Override
    public void close() throws InterruptedException {
        admin.close(Duration.ofSeconds(5));
        process.terminate(Duration.ofSeconds(20));
    }
}
