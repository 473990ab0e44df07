package dev.dedup.examples.bench;

import dev.dedup.client.Claims;
import dev.dedup.kafka.streams.Dedup;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
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
import org.apache.kafka.streams.state.Stores;
import org.apache.kafka.streams.state.WindowStore;
import org.apache.kafka.streams.state.WindowStoreIterator;

/**
 * The Kafka Streams application of the engine benchmark ({@code loadtest/bench-engines.sh}), in a JVM of its own so
 * that the benchmark can {@code kill -9} it: exactly-once v2, the kept records (value and headers) written to the
 * output topic. Arguments: {@code bootstrap input output applicationId stateDir own|ours windowSeconds}. Prints
 * {@code RUNNING} once its tasks run.
 *
 * <p>{@code ours}: the library's {@link Dedup} right after the source, claiming at the agent {@code DEDUP_URL} names.
 * {@code own}: Kafka Streams' own deduplication at its best, as its documentation's example does it: the records
 * re-keyed by message id and repartitioned, so that a message's copies meet in one task, then a persistent window
 * store (RocksDB, changelogged) of the ids seen, each kept for the window by the record's timestamp; a record whose id
 * the store holds within a window of its timestamp is dropped.
 */
public final class StreamsBenchApp {

    public static void main(String[] args) throws Exception {
        boolean own = args[5].equals("own");
        Duration window = Duration.ofSeconds(Long.parseLong(args[6]));
        Properties p = new Properties();
        p.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, args[0]);
        p.put(StreamsConfig.APPLICATION_ID_CONFIG, args[3]);
        p.put(StreamsConfig.STATE_DIR_CONFIG, args[4]);
        p.put(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, StreamsConfig.EXACTLY_ONCE_V2);
        p.put(StreamsConfig.consumerPrefix("auto.offset.reset"), "earliest");
        // a killed instance's tasks move after 6 s rather than 45: the same for both sides
        p.put(StreamsConfig.consumerPrefix("session.timeout.ms"), "6000");
        p.put(StreamsConfig.consumerPrefix("heartbeat.interval.ms"), "1000");

        StreamsBuilder builder = new StreamsBuilder();
        var input = builder.stream(args[1], Consumed.with(Serdes.String(), Serdes.ByteArray()));
        if (own) {
            builder.addStateStore(Stores.windowStoreBuilder(
                    Stores.persistentWindowStore("seen", window, window, false), Serdes.String(), Serdes.Long()));
            input.process(IdAsKey::new)
                    .repartition(Repartitioned.<String, byte[]>as("by-id")
                            .withKeySerde(Serdes.String())
                            .withValueSerde(Serdes.ByteArray()))
                    .process(() -> new FirstInWindow(window), "seen")
                    .to(args[2], Produced.with(Serdes.String(), Serdes.ByteArray()));
        } else {
            Dedup<String, byte[]> dedup = Dedup.builder(
                            Claims.fromEnvironment("bench"), Serdes.String(), Serdes.ByteArray())
                    .idFromHeader("message-id")
                    .build();
            input.process(dedup).to(args[2], Produced.with(Serdes.String(), Serdes.ByteArray()));
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

    /**
     * Forwards a record unless the store holds its key within a window of its timestamp: a late copy carries its
     * resend's timestamp, up to the window after its original's.
     */
    private static final class FirstInWindow implements Processor<String, byte[], String, byte[]> {
        private final long window;
        private ProcessorContext<String, byte[]> context;
        private WindowStore<String, Long> seen;

        FirstInWindow(Duration window) {
            this.window = window.toMillis();
        }

        @Override
        public void init(ProcessorContext<String, byte[]> context) {
            this.context = context;
            this.seen = context.getStateStore("seen");
        }

        @Override
        public void process(Record<String, byte[]> record) {
            long ts = record.timestamp();
            try (WindowStoreIterator<Long> earlier = seen.fetch(record.key(), ts - window, ts + window)) {
                if (earlier.hasNext()) {
                    return;
                }
            }
            seen.put(record.key(), ts, ts);
            context.forward(record);
        }
    }

    private StreamsBenchApp() {}
}
