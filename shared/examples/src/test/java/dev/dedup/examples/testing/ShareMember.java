package dev.dedup.examples.testing;

import dev.dedup.client.Claims;
import dev.dedup.examples.sink.AggregateSink;
import dev.dedup.kafka.DedupShareConsumerLoop;
import dev.dedup.kafka.Delivery;
import dev.dedup.kafka.MessageIds;
import dev.dedup.kafka.OwnedSink;
import java.time.Duration;
import java.util.Properties;
import java.util.Set;
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
        MemberArgs a =
                MemberArgs.parse(args, Set.of("fail", "pauseBeforeAck", "stallAt", "stallMs", "renew", "renewFrom"));
        Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, a.bootstrap());
        p.put(ConsumerConfig.GROUP_ID_CONFIG, a.group());
        p.put("share.acknowledgement.mode", "explicit");
        p.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, "100");
        KafkaShareConsumer<String, byte[]> consumer =
                new KafkaShareConsumer<>(p, new StringDeserializer(), new ByteArrayDeserializer());
        AggregateSink sink = new AggregateSink(a.jdbc(), Sink.AUDIT);
        int failEvery = a.integer("fail", 0);
        int pause = a.integer("pauseBeforeAck", -1);
        int stall = a.integer("stallAt", -1);
        long stallFor = a.number("stallMs", 0);
        boolean renewing = a.flag("renew");
        long firstRenewal = a.number("renewFrom", 0);
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
                        consumer, Claims.fromEnvironment(a.namespace())) // the agent of DEDUP_URL, as a pod gives it
                .topics(a.topic())
                .idFromHeader(MessageIds.DEFAULT_HEADER)
                .failureBackoff(Duration.ofMillis(100)) // the tests fail many batches on purpose
                .sink(faulty)
                .listener(new PrintingListener(pause, () -> {}))
                .build();
        Members.run(loop, "share-loop", loop::stop);
    }

    private ShareMember() {}
}
