package dev.dedup.examples.testing;

import dev.dedup.client.Claims;
import dev.dedup.kafka.streams.Dedup;
import java.nio.charset.StandardCharsets;
import java.util.Properties;
import java.util.concurrent.CountDownLatch;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.Produced;
import org.apache.kafka.streams.kstream.Repartitioned;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.Stores;

/**
 * A Kafka Streams application in its own JVM, so that a test can {@code kill -9} it: the library's {@link Dedup}
 * right after the source, exactly-once v2, the kept records written to the output topic. Arguments: {@code bootstrap
 * input output applicationId stateDir namespace [ownDedup]}. Prints {@code RUNNING} once its tasks run and {@code
 * FLUSHED new=N retry=R duplicate=D} after each claim. Its agent is the one {@code DEDUP_URL} names. With {@code
 * ownDedup}, Kafka Streams' own way instead, for comparison: a changelogged store of the message ids this
 * application has forwarded (what KIP-655 and the usual examples do), re-keyed by id so that a message's copies
 * meet in one task.
 */
public final class StreamsMember {

    public static void main(String[] args) throws Exception {
        Properties p = new Properties();
        p.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, args[0]);
        p.put(StreamsConfig.APPLICATION_ID_CONFIG, args[3]);
        p.put(StreamsConfig.STATE_DIR_CONFIG, args[4]);
        p.put(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, StreamsConfig.EXACTLY_ONCE_V2);
        p.put(StreamsConfig.consumerPrefix("auto.offset.reset"), "earliest");
        p.put(StreamsConfig.consumerPrefix("session.timeout.ms"), "6000");
        p.put(StreamsConfig.consumerPrefix("heartbeat.interval.ms"), "1000");

        Dedup<String, byte[]> dedup = Dedup.builder(
                        Claims.fromEnvironment(args[5]), Serdes.String(), Serdes.ByteArray())
                .idFromHeader("message-id")
                .listener(new Dedup.Listener() {
                    @Override
                    public void claimed(int fresh, int retried, int duplicates) {
                        System.out.println("FLUSHED new=" + fresh + " retry=" + retried + " duplicate=" + duplicates);
                    }
                })
                .build();
        StreamsBuilder builder = new StreamsBuilder();
        if (args.length > 6 && args[6].equals("ownDedup")) {
            builder.addStateStore(
                    Stores.keyValueStoreBuilder(Stores.inMemoryKeyValueStore("seen"), Serdes.String(), Serdes.Long()));
            builder.stream(args[1], Consumed.with(Serdes.String(), Serdes.ByteArray()))
                    .process(IdAsKey::new)
                    .repartition(Repartitioned.with(Serdes.String(), Serdes.ByteArray()))
                    .process(ForwardFirst::new, "seen")
                    .to(args[2], Produced.with(Serdes.String(), Serdes.ByteArray()));
        } else {
            builder.stream(args[1], Consumed.with(Serdes.String(), Serdes.ByteArray()))
                    .process(dedup)
                    .to(args[2], Produced.with(Serdes.String(), Serdes.ByteArray()));
        }

        KafkaStreams streams = new KafkaStreams(builder.build(), p);
        CountDownLatch done = new CountDownLatch(1);
        streams.setStateListener((now, before) -> {
            if (now == KafkaStreams.State.RUNNING) {
                System.out.println("RUNNING");
            }
            if (now == KafkaStreams.State.ERROR || now == KafkaStreams.State.NOT_RUNNING) {
                done.countDown();
            }
        });
        Runtime.getRuntime().addShutdownHook(new Thread(streams::close));
        streams.start();
        done.await();
    }

    /** Keys each record by its message id (the {@code message-id} header). */
    private static final class IdAsKey implements Processor<String, byte[], String, byte[]> {
        private ProcessorContext<String, byte[]> context;

        @Override
        public void init(ProcessorContext<String, byte[]> context) {
            this.context = context;
        }

        @Override
        public void process(Record<String, byte[]> record) {
            String id = new String(record.headers().lastHeader("message-id").value(), StandardCharsets.UTF_8);
            context.forward(record.withKey(id));
        }
    }

    /** Forwards the first record of each key this application sees, as a state store of its own remembers them. */
    private static final class ForwardFirst implements Processor<String, byte[], String, byte[]> {
        private ProcessorContext<String, byte[]> context;
        private KeyValueStore<String, Long> seen;

        @Override
        public void init(ProcessorContext<String, byte[]> context) {
            this.context = context;
            this.seen = context.getStateStore("seen");
        }

        @Override
        public void process(Record<String, byte[]> record) {
            if (seen.get(record.key()) == null) {
                seen.put(record.key(), record.timestamp());
                context.forward(record);
            }
        }
    }

    private StreamsMember() {}
}
