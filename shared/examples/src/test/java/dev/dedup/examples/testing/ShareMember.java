package dev.dedup.examples.testing;

import dev.dedup.client.Claims;
import dev.dedup.examples.sink.AggregateSink;
import dev.dedup.kafka.DedupShareConsumerLoop;
import dev.dedup.kafka.Delivery;
import dev.dedup.kafka.MessageIds;
import dev.dedup.kafka.OwnedSink;
import java.time.Duration;
import java.util.Properties;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaShareConsumer;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;

/**
 * One member of a share group in its own JVM: the library's {@link DedupShareConsumerLoop} writing to the example's
 * {@link AggregateSink}, an {@link OwnedSink}, plus the faults a test asks for.
 *
 * <p>Arguments: {@code bootstrap topic group jdbcUrl namespace [options]}: {@code fail=N} (processing fails on
 * a record's first delivery when its id's hash is a multiple of N); {@code pauseBeforeAck=K} (after the K-th batch's
 * output is written, print {@code PAUSED} and wait to be killed); {@code stallAt=K stallMs=T} (the K-th batch's
 * processing takes T ms before its output is written); {@code renew} (while stalled, renew the locks every second,
 * printing {@code RENEWED} each time); {@code renewFrom=T} (with {@code renew}: the first renewal only T ms into the
 * stall, after a lock shorter than T has run out). Its agent is the one {@code DEDUP_URL} names, as a consumer pod's
 * is. SIGTERM stops the loop from a shutdown hook, as in a pod.
 *
 * <p>It prints what the loop tells: {@code VERDICTS}, {@code SINK FAILED} (with the failure), {@code RELEASED} (the
 * claims given back), {@code REFUSED} (acknowledgements the broker refused).
 */
public final class ShareMember {

    public static void main(String[] args) throws Exception {
        String bootstrap = args[0];
        String topic = args[1];
        String group = args[2];
        String jdbc = args[3];
        String ns = args[4];
        int fail = 0;
        int pauseAt = -1;
        int stallAt = -1;
        long stallMs = 0;
        boolean renew = false;
        long renewFrom = 0;
        for (int i = 5; i < args.length; i++) {
            String[] kv = args[i].split("=", 2);
            switch (kv[0]) {
                case "fail" -> fail = Integer.parseInt(kv[1]);
                case "pauseBeforeAck" -> pauseAt = Integer.parseInt(kv[1]);
                case "stallAt" -> stallAt = Integer.parseInt(kv[1]);
                case "stallMs" -> stallMs = Long.parseLong(kv[1]);
                case "renew" -> renew = true;
                case "renewFrom" -> renewFrom = Long.parseLong(kv[1]);
                default -> throw new IllegalArgumentException(args[i]);
            }
        }
        Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ConsumerConfig.GROUP_ID_CONFIG, group);
        p.put("share.acknowledgement.mode", "explicit");
        p.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, "100");
        KafkaShareConsumer<String, byte[]> consumer =
                new KafkaShareConsumer<>(p, new StringDeserializer(), new ByteArrayDeserializer());
        AggregateSink sink = new AggregateSink(jdbc, Sink.AUDIT);
        int failEvery = fail;
        int pause = pauseAt;
        int stall = stallAt;
        long stallFor = stallMs;
        boolean renewing = renew;
        long firstRenewal = renewFrom;
        int[] batch = {0};
        OwnedSink<String, byte[]> faulty = (kept, renewal) -> {
            batch[0]++;
            if (failEvery > 0) {
                for (Delivery<String, byte[]> d : kept) {
                    if (d.deliveryCount() == 1 && Math.floorMod(d.id().hashCode(), failEvery) == 0) {
                        System.out.println("FAILED batch holding " + d.id());
                        throw new IllegalStateException("processing failed (injected)");
                    }
                }
            }
            if (batch[0] == stall && !kept.isEmpty()) {
                System.out.println("STALLING " + kept.size() + " records for " + stallFor + " ms"
                        + (renewing ? ", renewing the locks" : ""));
                long from = System.currentTimeMillis();
                long until = from + stallFor;
                while (System.currentTimeMillis() < until) {
                    Thread.sleep(Math.min(1_000, Math.max(1, until - System.currentTimeMillis())));
                    if (renewing && System.currentTimeMillis() - from >= firstRenewal) {
                        renewal.renew();
                        System.out.println("RENEWED");
                    }
                }
                System.out.println("STALLED done");
            }
            sink.write(kept, renewal);
            System.out.println("PROCESSED " + kept.size());
        };
        DedupShareConsumerLoop<String, byte[]> loop = DedupShareConsumerLoop.builder(
                        consumer, Claims.fromEnvironment(ns)) // the agent of DEDUP_URL, as a pod gives it
                .topics(topic)
                .idFromHeader(MessageIds.DEFAULT_HEADER)
                .failureBackoff(Duration.ofMillis(100)) // the tests fail many batches on purpose
                .sink(faulty)
                .listener(new DedupShareConsumerLoop.Listener() {
                    @Override
                    public void claimed(int fresh, int retried, int duplicates) {
                        System.out.println("VERDICTS new=" + fresh + " retry=" + retried + " duplicate=" + duplicates);
                    }

                    @Override
                    public void sinkFailed(Exception failure) {
                        System.out.println("SINK FAILED " + failure);
                    }

                    @Override
                    public void released(int released) {
                        System.out.println("RELEASED " + released);
                    }

                    @Override
                    public void acknowledgementsRefused(int partitions, String reason) {
                        System.out.println("REFUSED acknowledgements on " + partitions + " partitions: " + reason);
                    }

                    @Override
                    public void beforeAcknowledge(int n) {
                        if (n == pause) {
                            System.out.println("PAUSED before acknowledging batch " + n);
                            System.out.flush();
                            try {
                                Thread.sleep(Long.MAX_VALUE); // until kill -9
                            } catch (InterruptedException e) {
                                Thread.currentThread().interrupt();
                            }
                        }
                    }
                })
                .build();
        Thread worker = new Thread(loop, "share-loop");
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            loop.stop();
            try {
                worker.join(10_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }));
        System.out.println("STARTED");
        worker.start();
        worker.join();
    }

    private ShareMember() {}
}
