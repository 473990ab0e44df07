package dev.dedup.examples.testing;

import dev.dedup.examples.sink.Event;
import dev.dedup.kafka.MessageIds;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Random;
import java.util.Set;
import java.util.UUID;
import java.util.stream.Collectors;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * The ground truth of a pipeline test: unique messages (a UUID transaction id, an app, an event time, an amount) and
 * the copies a real stream carries, written to a topic in the order a producer would write them: the id in the
 * {@code message-id} header, the app as the record key (a partitioning key, as a user or a device is).
 *
 * <ul>
 *   <li>{@link Kind#ORIGINAL}: written when the event happens; the record's timestamp is the event time.
 *   <li>{@link Kind#RETRY_COPY}: a producer retry: the same record again a few records later, same partition,
 *       same timestamp, another offset.
 *   <li>{@link Kind#LATE_COPY}: the message sent again minutes later by an upstream that re-sends (another
 *       partition, the record stamped when re-sent).
 *   <li>{@link Kind#LATE_ORIGINAL}: a message written minutes after its event time (a device that was offline),
 *       stamped with its event time.
 * </ul>
 *
 * Event times span {@link #SPAN_MILLIS} ending an hour ago (the broker takes timestamps up to an hour ahead only).
 */
public final class Traffic {

    public enum Kind {
        ORIGINAL,
        RETRY_COPY,
        LATE_COPY,
        LATE_ORIGINAL
    }

    public record Message(String id, String app, long eventMillis, long amount) {}

    /** One record to write: which message, which kind of copy, where, stamped when, written when. */
    public record Copy(Message message, Kind kind, int partition, long timestamp, long writeMillis) {}

    public static final long SPAN_MILLIS = 20 * 60_000L;

    private final List<Message> messages;
    private final List<Copy> copies;
    private final int partitions;
    /** Where {@link #produce} wrote each copy (index as in {@link #copies()}), -1 before. */
    private final long[] offsets;

    private Traffic(List<Message> messages, List<Copy> copies, int partitions) {
        this.messages = messages;
        this.copies = copies;
        this.partitions = partitions;
        this.offsets = new long[copies.size()];
        java.util.Arrays.fill(offsets, -1);
    }

    /**
     * {@code unique} messages over {@code partitions}: 10 % written twice by a producer retry, 4 % sent again 3 to 6
     * minutes later, 3 % first written 3 to 6 minutes late.
     */
    public static Traffic generate(int unique, int partitions, long seed) {
        long start = (System.currentTimeMillis() - 3_600_000L - SPAN_MILLIS) / 60_000L * 60_000L;
        return generate(unique, partitions, seed, start, SPAN_MILLIS, 180_000L, 360_000L);
    }

    /**
     * The same shares as {@link #generate(int, int, long)}, with event times spread evenly over {@code spanMillis}
     * from {@code start} and late copies and late originals {@code minDelayMillis} to {@code maxDelayMillis} late: a
     * stream written as it happens when {@code start} is now ({@link #produceAtWriteTimes}).
     */
    public static Traffic generate(
            int unique,
            int partitions,
            long seed,
            long start,
            long spanMillis,
            long minDelayMillis,
            long maxDelayMillis) {
        Random rnd = new Random(seed);
        int spread = (int) Math.max(1, maxDelayMillis - minDelayMillis);
        List<Message> messages = new ArrayList<>(unique);
        List<Copy> copies = new ArrayList<>();
        for (int i = 0; i < unique; i++) {
            long event = start + (spanMillis * i) / unique;
            Message m = new Message(
                    new UUID(rnd.nextLong(), rnd.nextLong()).toString(),
                    "app" + rnd.nextInt(6),
                    event,
                    1 + rnd.nextInt(100));
            messages.add(m);
            int partition = rnd.nextInt(partitions);
            double r = rnd.nextDouble();
            if (r < 0.03) {
                long late = event + minDelayMillis + rnd.nextInt(spread);
                copies.add(new Copy(m, Kind.LATE_ORIGINAL, partition, event, late));
            } else {
                copies.add(new Copy(m, Kind.ORIGINAL, partition, event, event));
            }
            if (r >= 0.03 && r < 0.13) {
                copies.add(new Copy(m, Kind.RETRY_COPY, partition, event, event + 1 + rnd.nextInt(2_000)));
            } else if (r >= 0.13 && r < 0.17) {
                long resent = event + minDelayMillis + rnd.nextInt(spread);
                int other = (partition + 1 + rnd.nextInt(partitions - 1)) % partitions;
                copies.add(new Copy(m, Kind.LATE_COPY, other, resent, resent));
            }
        }
        copies.sort(Comparator.comparingLong(Copy::writeMillis));
        return new Traffic(messages, copies, partitions);
    }

    /**
     * The same messages and copies, written from copy {@code first} to the end and then from the start: a topic of
     * the same stream whose reader meets those messages first and the others later.
     */
    public Traffic startingAt(int first) {
        if (first < 0 || first >= copies.size()) {
            throw new IllegalArgumentException("first: 0 to " + (copies.size() - 1) + ", got " + first);
        }
        List<Copy> rotated = new ArrayList<>(copies.subList(first, copies.size()));
        rotated.addAll(copies.subList(0, first));
        return new Traffic(messages, rotated, partitions);
    }

    public List<Message> messages() {
        return messages;
    }

    public List<Copy> copies() {
        return copies;
    }

    public int partitions() {
        return partitions;
    }

    public long count(Kind kind) {
        return copies.stream().filter(c -> c.kind() == kind).count();
    }

    public Set<String> ids(Kind kind) {
        return copies.stream()
                .filter(c -> c.kind() == kind)
                .map(c -> c.message().id())
                .collect(Collectors.toSet());
    }

    /** The offset {@link #produce} wrote copy {@code i} at ({@link #copies()} order), -1 when not (yet) written. */
    public long offset(int i) {
        return offsets[i];
    }

    /** Writes every copy in write order at once; returns the number of records written. */
    public int produce(String bootstrap, String topic) {
        return produce(bootstrap, topic, java.time.Duration.ZERO);
    }

    /**
     * Writes every copy in write order, spread evenly over {@code over} (a stream still flowing while faults hit), and
     * waits for every write's acknowledgement: a record the broker did not take fails here, not as a loss later.
     */
    public int produce(String bootstrap, String topic, java.time.Duration over) {
        long started = System.nanoTime();
        int i = 0;
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        p.put(ProducerConfig.LINGER_MS_CONFIG, "5");
        // One request in flight. With more, the first request to a topic just created can reach the broker before it
        // has opened the partition (NOT_LEADER_OR_FOLLOWER) while the next one, sent meanwhile, arrives after and is
        // appended: a 4.2 broker takes any first sequence from a producer it holds no state for. Every retry of the
        // first is then refused (OUT_OF_ORDER_SEQUENCE_NUMBER) until delivery.timeout.ms (2 min) drops its records,
        // and flush() does not say so: the first batch of a partition (241 records here) is silently gone.
        // KAFKA-15591 (fixed upstream by apache/kafka#23234); docs/pipelines.md#records-the-broker-never-took.
        p.put(ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, "1");
        List<java.util.concurrent.Future<org.apache.kafka.clients.producer.RecordMetadata>> sent =
                new ArrayList<>(copies.size());
        try (KafkaProducer<String, byte[]> producer =
                new KafkaProducer<>(p, new StringSerializer(), new ByteArraySerializer())) {
            for (Copy c : copies) {
                if (!over.isZero() && i++ % 50 == 0) {
                    long due = started + over.toNanos() * i / copies.size();
                    long wait = due - System.nanoTime();
                    if (wait > 0) {
                        try {
                            Thread.sleep(wait / 1_000_000, (int) (wait % 1_000_000));
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                            return i;
                        }
                    }
                }
                Message m = c.message();
                // The id in a header, the key a partitioning key shared by many messages (here the app): a worker
                // that took the key for the id would drop most of the stream as duplicates.
                sent.add(producer.send(new ProducerRecord<>(
                        topic,
                        c.partition(),
                        c.timestamp(),
                        m.app(),
                        Event.value(m.app(), m.eventMillis(), m.amount()).getBytes(StandardCharsets.UTF_8),
                        List.of(new RecordHeader(
                                MessageIds.DEFAULT_HEADER, m.id().getBytes(StandardCharsets.UTF_8))))));
            }
            producer.flush();
            for (int k = 0; k < sent.size(); k++) {
                offsets[k] = sent.get(k).get().offset();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return sent.size();
        } catch (java.util.concurrent.ExecutionException e) {
            throw new IllegalStateException("a record was not written to " + topic, e.getCause());
        }
        return copies.size();
    }

    /**
     * Writes every copy when the wall clock reaches its write time, as a live stream is written (a constant rate of
     * messages, late copies and late originals minutes behind), acknowledgements awaited as in {@link #produce}.
     * Returns the number of records written.
     */
    public int produceAtWriteTimes(String bootstrap, String topic) throws InterruptedException {
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        p.put(ProducerConfig.LINGER_MS_CONFIG, "5");
        p.put(ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, "1"); // as produce(): KAFKA-15591
        java.util.concurrent.atomic.AtomicReference<Exception> failed =
                new java.util.concurrent.atomic.AtomicReference<>();
        try (KafkaProducer<String, byte[]> producer =
                new KafkaProducer<>(p, new StringSerializer(), new ByteArraySerializer())) {
            for (int i = 0; i < copies.size(); i++) {
                Copy c = copies.get(i);
                long wait = c.writeMillis() - System.currentTimeMillis();
                if (wait > 0) {
                    Thread.sleep(wait);
                }
                if (failed.get() != null) {
                    break;
                }
                Message m = c.message();
                int k = i;
                producer.send(
                        new ProducerRecord<>(
                                topic,
                                c.partition(),
                                c.timestamp(),
                                m.app(),
                                Event.value(m.app(), m.eventMillis(), m.amount())
                                        .getBytes(StandardCharsets.UTF_8),
                                List.of(new RecordHeader(
                                        MessageIds.DEFAULT_HEADER, m.id().getBytes(StandardCharsets.UTF_8)))),
                        (metadata, e) -> {
                            if (e != null) {
                                failed.compareAndSet(null, e);
                            } else {
                                offsets[k] = metadata.offset();
                            }
                        });
            }
            producer.flush();
        }
        if (failed.get() != null) {
            throw new IllegalStateException("a record was not written to " + topic, failed.get());
        }
        return copies.size();
    }

    /** The aggregates every correct pipeline must end with: app -> minute -> {events, amount}. */
    public Map<String, Map<Long, long[]>> expectedAggregates() {
        Map<String, Map<Long, long[]>> out = new HashMap<>();
        for (Message m : messages) {
            long minute = m.eventMillis() - Math.floorMod(m.eventMillis(), 60_000L);
            long[] s = out.computeIfAbsent(m.app(), k -> new HashMap<>()).computeIfAbsent(minute, k -> new long[2]);
            s[0]++;
            s[1] += m.amount();
        }
        return out;
    }
}
