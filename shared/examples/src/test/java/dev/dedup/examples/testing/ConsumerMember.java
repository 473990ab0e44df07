package dev.dedup.examples.testing;

import dev.dedup.client.Claims;
import dev.dedup.examples.sink.AggregateSink;
import dev.dedup.kafka.DedupConsumerLoop;
import dev.dedup.kafka.MessageIds;
import dev.dedup.kafka.TransactionalSink;
import dev.dedup.kafka.sink.JdbcSink;
import dev.dedup.kafka.sink.KafkaTransactionSink;
import java.sql.DriverManager;
import java.time.Duration;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Collectors;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * One member of a consumer group, in its own JVM so that a test can {@code kill -9} it: the library's
 * {@link DedupConsumerLoop} writing to the example's {@link AggregateSink}, plus the faults a test asks for.
 *
 * <p>Arguments: {@code bootstrap topic group jdbcUrl namespace [fail=N] [pauseBeforeCommit=K] [resumeFromSink]}. {@code
 * fail=N}: processing fails once for every batch holding an id whose hash is a multiple of N. {@code
 * pauseBeforeCommit=K}: after the K-th batch's output is written, print {@code PAUSED} and wait to be killed.
 * {@code resumeFromSink}: on assignment, seek to the offsets the sink stored (and print {@code RESUMING}). {@code
 * jdbcSink}: the library's ready {@code JdbcSink} keeps the offsets (in {@code stream_offsets}) and the transaction,
 * the example's sink only writes the rows. {@code kafkaSink=TOPIC}: the library's {@code KafkaTransactionSink}
 * produces each kept record (its headers and value) to TOPIC with the offsets in one Kafka transaction; with {@code
 * pauseInTransaction=K}, the K-th batch's transaction waits, open, after its second record (print {@code PAUSED}),
 * to be killed. Its agent is the one {@code DEDUP_URL} names, as a consumer pod's is.
 */
public final class ConsumerMember {

    public static void main(String[] args) throws Exception {
        MemberArgs a = MemberArgs.parse(
                args,
                Set.of("fail", "pauseBeforeCommit", "resumeFromSink", "jdbcSink", "kafkaSink", "pauseInTransaction"));
        String bootstrap = a.bootstrap();
        String group = a.group();
        String jdbc = a.jdbc();
        String ns = a.namespace();
        boolean resumeFromSink = a.flag("resumeFromSink");
        String kafkaSink = a.options().get("kafkaSink");
        Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ConsumerConfig.GROUP_ID_CONFIG, group);
        p.put(ConsumerConfig.GROUP_PROTOCOL_CONFIG, "consumer");
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        p.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, "200");
        KafkaConsumer<String, byte[]> consumer =
                new KafkaConsumer<>(p, new StringDeserializer(), new ByteArrayDeserializer());

        AggregateSink rows = new AggregateSink(jdbc, Sink.AUDIT);
        int[] batch = {0};
        int[] inBatch = {0};
        TransactionalSink<String, byte[]> sink;
        if (kafkaSink != null) {
            Properties pp = new Properties();
            pp.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
            pp.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, "tx-" + group + "-" + ns);
            KafkaProducer<String, byte[]> producer =
                    new KafkaProducer<>(pp, new StringSerializer(), new ByteArraySerializer());
            String out = kafkaSink;
            int pauseIn = a.integer("pauseInTransaction", -1);
            sink = KafkaTransactionSink.<String, byte[], String, byte[]>builder(producer, consumer)
                    .output(r -> {
                        if (batch[0] == pauseIn && ++inBatch[0] == 2) {
                            Members.pauseUntilKilled("in the transaction of batch " + batch[0]);
                        }
                        return new ProducerRecord<>(out, null, r.key(), r.value(), r.headers());
                    })
                    .build();
        } else if (a.flag("jdbcSink")) {
            sink = JdbcSink.<String, byte[]>builder(() -> DriverManager.getConnection(jdbc), group)
                    .writer(rows::apply)
                    .build();
        } else {
            sink = rows;
        }
        Set<String> failedOnce = new HashSet<>();
        int fail = a.integer("fail", 0);
        int pause = a.integer("pauseBeforeCommit", -1);
        TransactionalSink<String, byte[]> write = (kept, next) -> {
            if (fail > 0) {
                for (ConsumerRecord<String, byte[]> r : kept) {
                    String id = MessageIds.header(r, MessageIds.DEFAULT_HEADER);
                    if (Math.floorMod(id.hashCode(), fail) == 0 && failedOnce.add(id)) {
                        System.out.println("FAILED batch holding " + id);
                        throw new IllegalStateException("processing failed (injected)");
                    }
                }
            }
            sink.write(kept, next);
        };
        // Without resumeFromSink the loop starts where Kafka's committed offsets say, so that a batch written and
        // not committed is read again and answered retry; with it, the loop also seeks to the sink's offsets.
        TransactionalSink<String, byte[]> target = !resumeFromSink
                ? write
                : new TransactionalSink<>() {
                    @Override
                    public void write(List<ConsumerRecord<String, byte[]>> kept, Map<TopicPartition, Long> next)
                            throws Exception {
                        write.write(kept, next);
                    }

                    @Override
                    public Map<TopicPartition, Long> storedOffsets(Collection<TopicPartition> partitions)
                            throws Exception {
                        Map<TopicPartition, Long> stored = sink.storedOffsets(partitions);
                        System.out.println("RESUMING at "
                                + new TreeMap<>(stored.entrySet().stream()
                                        .collect(
                                                Collectors.toMap(e -> e.getKey().toString(), Map.Entry::getValue))));
                        return stored;
                    }
                };
        DedupConsumerLoop<String, byte[]> loop = DedupConsumerLoop.builder(
                        consumer, Claims.fromEnvironment(ns)) // the agent of DEDUP_URL, as a pod gives it
                .topics(a.topic())
                .idFromHeader(MessageIds.DEFAULT_HEADER)
                .failureBackoff(Duration.ofMillis(100)) // the tests fail many batches on purpose
                .sink(target)
                .listener(new PrintingListener(pause, () -> {
                    batch[0]++;
                    inBatch[0] = 0;
                }))
                .build();
        // as the docs write it: stop() returns once the loop has committed, closed the consumer and left the group
        Members.run(loop, "consumer-loop", loop::stop);
    }

    private ConsumerMember() {}
}
