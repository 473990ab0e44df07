package dev.dedup.examples.sink;

import dev.dedup.kafka.Delivery;
import dev.dedup.kafka.OwnedSink;
import dev.dedup.kafka.TransactionalSink;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Timestamp;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.TopicPartition;

/**
 * The examples' output: per-minute counts and sums per app in PostgreSQL ({@code event_counts}), written in one
 * transaction per batch together with what makes the write exact when a batch is processed again.
 *
 * <p>The agent drops the copies a producer wrote twice (another offset, another owner). It answers {@code RETRY}, so
 * "process again", to a worker that reads the same copy again (a retried task, a consumer restarted before its
 * offset commit, a share-group record whose lock ran out): the output of that copy may already be written. The sink
 * tells, in the same transaction as the output:
 *
 * <ul>
 *   <li>a consumer reading partitions in order: the next offset applied per partition ({@link #write(List, Map)}, a
 *       {@link TransactionalSink});
 *   <li>a Spark query: the last micro-batch id applied ({@link #writeAggregates});
 *   <li>a share group, where one partition's records go to several members in no order: each applied record's owner
 *       ({@link #write(List, OwnedSink.Renewal)}, an {@link OwnedSink}).
 * </ul>
 *
 * <p>{@link Audit} sees what each transaction applies (the tests count every id with it); pass {@link Audit#NONE}.
 */
public final class AggregateSink implements TransactionalSink<String, byte[]>, OwnedSink<String, byte[]> {

    /** Called inside the transaction with the ids it applies, before it commits. */
    @FunctionalInterface
    public interface Audit {
        Audit NONE = (c, ids) -> {};

        void applied(Connection c, Collection<String> ids) throws SQLException;
    }

    /** One aggregate row: a Spark job computes these. */
    public record Aggregate(String app, long minuteMillis, long events, long amount) {}

    private final String jdbcUrl;
    private final Audit audit;

    public AggregateSink(String jdbcUrl, Audit audit) {
        this.jdbcUrl = jdbcUrl;
        this.audit = audit;
    }

    /** Whether an {@link Audit} other than {@link Audit#NONE} wants the applied ids. */
    public boolean audited() {
        return audit != Audit.NONE;
    }

    public void createTables() throws SQLException {
        try (Connection c = DriverManager.getConnection(jdbcUrl);
                Statement s = c.createStatement()) {
            s.execute("CREATE TABLE IF NOT EXISTS event_counts (app text, minute timestamptz, events bigint NOT NULL,"
                    + " amount bigint NOT NULL, PRIMARY KEY (app, minute))");
            s.execute("CREATE TABLE IF NOT EXISTS sink_offsets (topic text, kafka_partition int, next_offset bigint"
                    + " NOT NULL, PRIMARY KEY (topic, kafka_partition))");
            s.execute("CREATE TABLE IF NOT EXISTS sink_batches (query text PRIMARY KEY, last_batch bigint NOT NULL)");
            s.execute("CREATE TABLE IF NOT EXISTS sink_owners (owner text PRIMARY KEY, attempts int NOT NULL)");
        }
    }

    /**
     * A consumer's batch ({@link TransactionalSink}): {@code kept} are the records the loop kept (verdict new or
     * retry), {@code nextOffsets} one past the last offset it read per partition (duplicates included). Records
     * below the next offset already stored for their partition were applied by an earlier transaction and are
     * skipped; the greater next offsets are stored in the same transaction as the counts.
     */
    @Override
    public void write(List<ConsumerRecord<String, byte[]>> kept, Map<TopicPartition, Long> nextOffsets)
            throws SQLException {
        List<Event> events = new ArrayList<>(kept.size());
        for (ConsumerRecord<String, byte[]> r : kept) {
            events.add(Event.of(r));
        }
        writeRecords(events, nextOffsets);
    }

    /**
     * Applies {@code records} on {@code c}, inside a transaction someone else runs: the aggregates, and the audit.
     * What a ready sink's writer does with this example's tables ({@code JdbcSink}'s {@code RowWriter}).
     */
    public void apply(Connection c, List<ConsumerRecord<String, byte[]>> records) throws SQLException {
        List<Event> events = new ArrayList<>(records.size());
        for (ConsumerRecord<String, byte[]> r : records) {
            events.add(Event.of(r));
        }
        addEvents(c, events);
        audit.applied(c, events.stream().map(Event::id).toList());
    }

    /** The next offsets {@link #write(List, Map)} stored: where a consumer assigned these partitions starts. */
    @Override
    public Map<TopicPartition, Long> storedOffsets(Collection<TopicPartition> partitions) throws SQLException {
        Map<TopicPartition, Long> stored = new HashMap<>();
        try (Connection c = DriverManager.getConnection(jdbcUrl);
                PreparedStatement s = c.prepareStatement(
                        "SELECT topic, kafka_partition, next_offset FROM sink_offsets WHERE topic = ANY (?)")) {
            s.setArray(1, c.createArrayOf("text", topics(partitions).toArray()));
            try (ResultSet rs = s.executeQuery()) {
                while (rs.next()) {
                    TopicPartition tp = new TopicPartition(rs.getString(1), rs.getInt(2));
                    if (partitions.contains(tp)) {
                        stored.put(tp, rs.getLong(3));
                    }
                }
            }
        }
        return stored;
    }

    private void writeRecords(List<Event> kept, Map<TopicPartition, Long> nextOffsets) throws SQLException {
        try (Connection c = DriverManager.getConnection(jdbcUrl)) {
            c.setAutoCommit(false);
            Map<TopicPartition, Long> stored = new HashMap<>();
            try (PreparedStatement lock = c.prepareStatement("SELECT topic, kafka_partition, next_offset FROM"
                    + " sink_offsets WHERE topic = ANY (?) ORDER BY topic, kafka_partition FOR UPDATE")) {
                lock.setArray(
                        1, c.createArrayOf("text", topics(nextOffsets.keySet()).toArray()));
                try (ResultSet rs = lock.executeQuery()) {
                    while (rs.next()) {
                        stored.put(new TopicPartition(rs.getString(1), rs.getInt(2)), rs.getLong(3));
                    }
                }
            }
            List<Event> fresh = new ArrayList<>();
            for (Event e : kept) {
                if (e.offset() >= stored.getOrDefault(new TopicPartition(e.topic(), e.partition()), 0L)) {
                    fresh.add(e);
                }
            }
            addEvents(c, fresh);
            try (PreparedStatement up = c.prepareStatement(
                    "INSERT INTO sink_offsets (topic, kafka_partition, next_offset) VALUES (?, ?, ?) ON CONFLICT"
                            + " (topic, kafka_partition) DO UPDATE SET next_offset ="
                            + " GREATEST(sink_offsets.next_offset, EXCLUDED.next_offset)")) {
                for (Map.Entry<TopicPartition, Long> e : nextOffsets.entrySet()) {
                    up.setString(1, e.getKey().topic());
                    up.setInt(2, e.getKey().partition());
                    up.setLong(3, e.getValue());
                    up.addBatch();
                }
                up.executeBatch();
            }
            audit.applied(c, fresh.stream().map(Event::id).toList());
            c.commit();
        }
    }

    private static Set<String> topics(Collection<TopicPartition> partitions) {
        Set<String> topics = new TreeSet<>();
        partitions.forEach(tp -> topics.add(tp.topic()));
        return topics;
    }

    /**
     * A Spark micro-batch's aggregates: applied once per {@code batchId} of {@code query} (Spark runs a batch again
     * with the same id after a driver restart).
     *
     * @return false when that batch had been applied
     */
    public boolean writeAggregates(String query, long batchId, List<Aggregate> rows, Collection<String> ids)
            throws SQLException {
        try (Connection c = DriverManager.getConnection(jdbcUrl)) {
            c.setAutoCommit(false);
            try (PreparedStatement mark = c.prepareStatement(
                    "INSERT INTO sink_batches (query, last_batch) VALUES (?, ?) ON CONFLICT (query) DO UPDATE SET"
                            + " last_batch = EXCLUDED.last_batch WHERE sink_batches.last_batch < EXCLUDED.last_batch")) {
                mark.setString(1, query);
                mark.setLong(2, batchId);
                if (mark.executeUpdate() == 0) {
                    c.rollback();
                    return false;
                }
            }
            try (PreparedStatement up = c.prepareStatement(UPSERT)) {
                for (Aggregate a : rows) {
                    bind(up, a.app(), a.minuteMillis(), a.events(), a.amount());
                    up.addBatch();
                }
                up.executeBatch();
            }
            audit.applied(c, ids);
            c.commit();
            return true;
        }
    }

    /**
     * A share-group member's batch ({@link OwnedSink}): each record is applied once per owner ({@code
     * topic:partition:offset}); a record delivered again whose output was written is counted in {@code
     * sink_owners.attempts} and not applied again. It leaves the locks alone: one transaction takes far less than a
     * lock's duration.
     */
    @Override
    public void write(List<Delivery<String, byte[]>> kept, OwnedSink.Renewal renewal) throws SQLException {
        List<Event> events = new ArrayList<>(kept.size());
        for (Delivery<String, byte[]> d : kept) {
            ConsumerRecord<String, byte[]> r = d.record();
            events.add(Event.parse(d.id(), r.value(), r.topic(), r.partition(), r.offset()));
        }
        writeOwned(events);
    }

    private void writeOwned(List<Event> kept) throws SQLException {
        try (Connection c = DriverManager.getConnection(jdbcUrl)) {
            c.setAutoCommit(false);
            List<Event> fresh = new ArrayList<>();
            List<Event> sorted = new ArrayList<>(kept);
            sorted.sort(java.util.Comparator.comparing(Event::owner)); // one lock order for every member
            try (PreparedStatement own = c.prepareStatement(
                    "INSERT INTO sink_owners (owner, attempts) VALUES (?, 1) ON CONFLICT (owner) DO UPDATE SET"
                            + " attempts = sink_owners.attempts + 1 RETURNING attempts")) {
                for (Event e : sorted) {
                    own.setString(1, e.owner());
                    try (ResultSet rs = own.executeQuery()) {
                        rs.next();
                        if (rs.getInt(1) == 1) {
                            fresh.add(e);
                        }
                    }
                }
            }
            addEvents(c, fresh);
            audit.applied(c, fresh.stream().map(Event::id).toList());
            c.commit();
        }
    }

    private static final String UPSERT = "INSERT INTO event_counts (app, minute, events, amount) VALUES (?, ?, ?, ?)"
            + " ON CONFLICT (app, minute) DO UPDATE SET events = event_counts.events + EXCLUDED.events,"
            + " amount = event_counts.amount + EXCLUDED.amount";

    private static void addEvents(Connection c, List<Event> events) throws SQLException {
        // sorted, so that concurrent transactions lock rows in one order (no deadlock)
        Map<String, long[]> sums = new java.util.TreeMap<>();
        for (Event e : events) {
            long[] s = sums.computeIfAbsent(e.app() + "\u0000" + e.minuteMillis(), k -> new long[2]);
            s[0]++;
            s[1] += e.amount();
        }
        try (PreparedStatement up = c.prepareStatement(UPSERT)) {
            for (Map.Entry<String, long[]> e : sums.entrySet()) {
                String[] key = e.getKey().split("\u0000");
                bind(up, key[0], Long.parseLong(key[1]), e.getValue()[0], e.getValue()[1]);
                up.addBatch();
            }
            up.executeBatch();
        }
    }

    private static void bind(PreparedStatement up, String app, long minuteMillis, long events, long amount)
            throws SQLException {
        up.setString(1, app);
        up.setTimestamp(2, new Timestamp(minuteMillis));
        up.setLong(3, events);
        up.setLong(4, amount);
    }
}
