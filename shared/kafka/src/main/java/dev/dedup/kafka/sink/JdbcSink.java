package dev.dedup.kafka.sink;

import dev.dedup.kafka.TransactionalSink;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.regex.Pattern;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.TopicPartition;

/**
 * A ready {@link TransactionalSink} for any JDBC database: the rows your {@link RowWriter} writes and the next
 * offsets of their partitions in one transaction, in an offsets table of its own, so that a batch read again after a
 * crash or a rebalance is written once.
 *
 * <pre>{@code
 * JdbcSink<String, byte[]> sink = JdbcSink.<String, byte[]>builder(dataSource::getConnection, "clicks-consumer")
 *         .writer((connection, records) -> {
 *             try (PreparedStatement insert = connection.prepareStatement("INSERT INTO clicks (id, body) VALUES (?, ?)")) {
 *                 for (ConsumerRecord<String, byte[]> r : records) {
 *                     insert.setString(1, MessageIds.header(r, "message-id"));
 *                     insert.setBytes(2, r.value());
 *                     insert.addBatch();
 *                 }
 *                 insert.executeBatch();
 *             }
 *         })
 *         .build();
 * }</pre>
 *
 * <p>Each {@link #write} runs one transaction: it locks the batch's partitions' rows of the offsets table (an
 * {@code UPDATE} of each, in one order, which every database of note turns into a row lock, so that two consumers
 * that both believe they own a partition after a rebalance take turns), then reads their stored next offsets, hands the writer the
 * records at or past them (a {@code RETRY} record below was applied by an earlier transaction), stores the batch's
 * next offsets and commits. A partition seen the first time gets its row by an {@code INSERT}; two consumers inserting
 * the same row at once make one of them fail, and the loop reads that batch again. {@link #storedOffsets} tells the
 * loop where each assigned partition's output ends.
 *
 * <p>The offsets table ({@value #DEFAULT_TABLE} unless named) is created when missing, with {@code CREATE TABLE IF
 * NOT EXISTS} (PostgreSQL, MySQL, MariaDB, SQLite, H2, Oracle 23, SQL Server 2016+ need the statement below made
 * by hand): {@code (consumer_group VARCHAR(255), topic VARCHAR(255), kafka_partition INTEGER, next_offset BIGINT,
 * PRIMARY KEY (consumer_group, topic, kafka_partition))}. Offsets are per consumer group: two groups writing to one
 * database keep theirs apart.
 *
 * @param <K> the records' key type
 * @param <V> the records' value type
 */
public final class JdbcSink<K, V> implements TransactionalSink<K, V> {

    /** The offsets table's name unless {@link Builder#offsetsTable} names another. */
    public static final String DEFAULT_TABLE = "stream_offsets";

    private static final Pattern TABLE_NAME =
            Pattern.compile("[A-Za-z_][A-Za-z0-9_]{0,62}(\\.[A-Za-z_][A-Za-z0-9_]{0,62})?");

    /** Gives a connection to the database; {@code dataSource::getConnection}, or {@code DriverManager.getConnection}. */
    @FunctionalInterface
    public interface ConnectionSource {
        Connection connect() throws SQLException;
    }

    /** Writes the output of records not applied before, on the sink's connection, inside its transaction. */
    @FunctionalInterface
    public interface RowWriter<K, V> {
        /**
         * @param connection the transaction's connection: write with it, do not commit, roll back or close it
         * @param records the records to apply, in poll order (per partition, in offset order); may be empty
         */
        void write(Connection connection, List<ConsumerRecord<K, V>> records) throws SQLException;
    }

    private final ConnectionSource connections;
    private final String group;
    private final RowWriter<K, V> writer;
    private final String lock;
    private final String select;
    private final String insert;
    private final String update;
    private final String create;
    private volatile boolean created;

    private JdbcSink(Builder<K, V> b) {
        this.connections = b.connections;
        this.group = b.group;
        this.writer = b.writer;
        String t = b.table;
        this.lock = "UPDATE " + t + " SET next_offset = next_offset WHERE consumer_group = ? AND topic = ? AND"
                + " kafka_partition = ?";
        this.select =
                "SELECT next_offset FROM " + t + " WHERE consumer_group = ? AND topic = ? AND kafka_partition = ?";
        this.insert = "INSERT INTO " + t + " (consumer_group, topic, kafka_partition, next_offset) VALUES (?, ?, ?, ?)";
        this.update = "UPDATE " + t + " SET next_offset = ? WHERE consumer_group = ? AND topic = ? AND kafka_partition"
                + " = ? AND next_offset < ?";
        this.create = b.createTable
                ? "CREATE TABLE IF NOT EXISTS " + t + " (consumer_group VARCHAR(255) NOT NULL, topic VARCHAR(255) NOT"
                        + " NULL, kafka_partition INTEGER NOT NULL, next_offset BIGINT NOT NULL, PRIMARY KEY"
                        + " (consumer_group, topic, kafka_partition))"
                : null;
        this.created = !b.createTable;
    }

    /**
     * A builder of a sink whose offsets are those of consumer group {@code group} (the consumer's {@code group.id}).
     */
    public static <K, V> Builder<K, V> builder(ConnectionSource connections, String group) {
        return new Builder<>(connections, group);
    }

    @Override
    public void write(List<ConsumerRecord<K, V>> kept, Map<TopicPartition, Long> nextOffsets) throws SQLException {
        try (Connection c = connections.connect()) {
            createTable(c);
            c.setAutoCommit(false);
            try {
                // partitions in one order everywhere, so that two consumers lock them without a deadlock
                Map<TopicPartition, Long> next = new TreeMap<>(
                        Comparator.comparing(TopicPartition::topic).thenComparingInt(TopicPartition::partition));
                next.putAll(nextOffsets);
                // Every lock first, then every read: in REPEATABLE READ (MySQL's default) the first plain read fixes
                // the transaction's snapshot, and a read before a later lock would miss what its holder committed.
                for (TopicPartition tp : next.keySet()) {
                    lock(c, tp);
                }
                Map<TopicPartition, Long> stored = new HashMap<>();
                for (TopicPartition tp : next.keySet()) {
                    stored.put(tp, read(c, tp));
                }
                List<ConsumerRecord<K, V>> fresh = new ArrayList<>(kept.size());
                for (ConsumerRecord<K, V> r : kept) {
                    Long at = stored.get(new TopicPartition(r.topic(), r.partition()));
                    if (at == null || r.offset() >= at) {
                        fresh.add(r);
                    }
                }
                writer.write(c, fresh);
                for (Map.Entry<TopicPartition, Long> e : next.entrySet()) {
                    store(c, e.getKey(), stored.get(e.getKey()), e.getValue());
                }
                c.commit();
            } catch (SQLException | RuntimeException | Error e) {
                rollback(c, e); // a connection closed in a transaction commits it on some drivers
                throw e;
            }
        }
    }

    @Override
    public Map<TopicPartition, Long> storedOffsets(Collection<TopicPartition> partitions) throws SQLException {
        Map<TopicPartition, Long> stored = new HashMap<>();
        try (Connection c = connections.connect()) {
            createTable(c);
            try (PreparedStatement s = c.prepareStatement(select)) {
                for (TopicPartition tp : partitions) {
                    bind(s, 1, tp);
                    try (ResultSet rs = s.executeQuery()) {
                        if (rs.next()) {
                            stored.put(tp, rs.getLong(1));
                        }
                    }
                }
            }
        }
        return stored;
    }

    /**
     * Locks the partition's row until the transaction ends, where it has one. Whether it has one is the read's to
     * say: a driver may count rows changed rather than matched (MySQL's {@code useAffectedRows}), 0 for this update.
     */
    private void lock(Connection c, TopicPartition tp) throws SQLException {
        try (PreparedStatement u = c.prepareStatement(lock)) {
            bind(u, 1, tp);
            u.executeUpdate();
        }
    }

    /** The partition's stored next offset; null when it has no row. */
    private Long read(Connection c, TopicPartition tp) throws SQLException {
        try (PreparedStatement s = c.prepareStatement(select)) {
            bind(s, 1, tp);
            try (ResultSet rs = s.executeQuery()) {
                return rs.next() ? rs.getLong(1) : null;
            }
        }
    }

    private void store(Connection c, TopicPartition tp, Long stored, long next) throws SQLException {
        if (stored == null) {
            try (PreparedStatement s = c.prepareStatement(insert)) {
                bind(s, 1, tp);
                s.setLong(4, next);
                s.executeUpdate();
            }
        } else if (next > stored) {
            try (PreparedStatement s = c.prepareStatement(update)) {
                s.setLong(1, next);
                bind(s, 2, tp);
                s.setLong(5, next);
                s.executeUpdate();
            }
        }
    }

    private void bind(PreparedStatement s, int from, TopicPartition tp) throws SQLException {
        s.setString(from, group);
        s.setString(from + 1, tp.topic());
        s.setInt(from + 2, tp.partition());
    }

    private void createTable(Connection c) throws SQLException {
        if (created) {
            return;
        }
        try (Statement s = c.createStatement()) {
            s.execute(create);
        }
        if (!c.getAutoCommit()) {
            c.commit();
        }
        created = true;
    }

    private static void rollback(Connection c, Throwable cause) {
        try {
            c.rollback();
        } catch (SQLException e) {
            cause.addSuppressed(e);
        }
    }

    /**
     * Settings of a {@link JdbcSink}; {@link #writer} is required. Checked when set and in {@link #build()}.
     *
     * @param <K> the records' key type
     * @param <V> the records' value type
     */
    public static final class Builder<K, V> {
        private final ConnectionSource connections;
        private final String group;
        private RowWriter<K, V> writer;
        private String table = DEFAULT_TABLE;
        private boolean createTable = true;

        private Builder(ConnectionSource connections, String group) {
            this.connections = Objects.requireNonNull(connections, "connections");
            if (group == null || group.isBlank() || group.length() > 255) {
                throw new IllegalArgumentException("group: the consumer's group.id, 1 to 255 characters, got "
                        + (group == null ? "null" : "'" + group + "'"));
            }
            this.group = group;
        }

        /** Writes the output of the records not applied before, in the sink's transaction. Required. */
        public Builder<K, V> writer(RowWriter<K, V> writer) {
            this.writer = Objects.requireNonNull(writer, "writer");
            return this;
        }

        /** The offsets table, {@value JdbcSink#DEFAULT_TABLE} by default; a name, or {@code schema.name}. */
        public Builder<K, V> offsetsTable(String name) {
            if (name == null || !TABLE_NAME.matcher(name).matches()) {
                throw new IllegalArgumentException("offsetsTable: a table name (letters, digits, _; schema.name),"
                        + " got " + (name == null ? "null" : "'" + name + "'"));
            }
            this.table = name;
            return this;
        }

        /** Whether the sink creates the offsets table when it is missing; true by default. */
        public Builder<K, V> createTable(boolean create) {
            this.createTable = create;
            return this;
        }

        /**
         * The sink.
         *
         * @throws IllegalArgumentException when {@link #writer} was not given
         */
        public JdbcSink<K, V> build() {
            if (writer == null) {
                throw new IllegalArgumentException("JdbcSink: writer is required: the rows a batch's records make");
            }
            return new JdbcSink<>(this);
        }
    }
}
