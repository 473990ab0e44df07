package dev.dedup.examples.kafka;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dedup.examples.testing.Postgres;
import dev.dedup.kafka.sink.JdbcSink;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The ready {@link JdbcSink} on PostgreSQL and on H2: a batch read again writes nothing twice, an overlapping one
 * only its new records, a failing writer leaves rows and offsets as they were, groups keep their offsets apart, and
 * two consumers writing one partition at once (a rebalance's zombie) apply each record once.
 */
class JdbcSinkIT {

    private static final String TOPIC = "clicks";
    private static final TopicPartition P0 = new TopicPartition(TOPIC, 0);
    private static final TopicPartition P1 = new TopicPartition(TOPIC, 1);

    @TempDir
    static Path dir;

    enum Database {
        POSTGRESQL,
        H2
    }

    /** A database of the test's own, with the output table {@code applied (topic, part, off)}. */
    private static final class Db implements AutoCloseable {
        final String url;
        final Postgres postgres;

        Db(Database kind, String name) throws SQLException {
            if (kind == Database.POSTGRESQL) {
                postgres = Postgres.createDatabase("jdbcsink");
                url = postgres.url();
            } else {
                postgres = null;
                url = "jdbc:h2:" + dir.resolve(name) + ";LOCK_TIMEOUT=20000";
            }
            try (Connection c = connect();
                    Statement s = c.createStatement()) {
                s.execute("CREATE TABLE applied (topic VARCHAR(255), part INTEGER, off BIGINT)");
            }
        }

        Connection connect() throws SQLException {
            return DriverManager.getConnection(url);
        }

        JdbcSink<String, String> sink(String group, boolean failing, CountDownLatch insideWriter) throws SQLException {
            return JdbcSink.<String, String>builder(this::connect, group)
                    .writer((c, records) -> {
                        try (PreparedStatement insert =
                                c.prepareStatement("INSERT INTO applied (topic, part, off) VALUES (?, ?, ?)")) {
                            for (ConsumerRecord<String, String> r : records) {
                                insert.setString(1, r.topic());
                                insert.setInt(2, r.partition());
                                insert.setLong(3, r.offset());
                                insert.addBatch();
                            }
                            insert.executeBatch();
                        }
                        if (insideWriter != null) {
                            insideWriter.countDown();
                            try {
                                Thread.sleep(300); // hold the partition's row lock while the other one tries
                            } catch (InterruptedException e) {
                                Thread.currentThread().interrupt();
                            }
                        }
                        if (failing) {
                            throw new SQLException("the writer failed (injected)");
                        }
                    })
                    .build();
        }

        long count(String where) throws SQLException {
            try (Connection c = connect()) {
                return Postgres.number(c, "SELECT count(*) FROM applied" + where);
            }
        }

        @Override
        public void close() throws SQLException {
            if (postgres != null) {
                postgres.close();
            }
        }
    }

    private static List<ConsumerRecord<String, String>> records(TopicPartition tp, long from, long to) {
        List<ConsumerRecord<String, String>> list = new ArrayList<>();
        for (long o = from; o < to; o++) {
            list.add(new ConsumerRecord<>(tp.topic(), tp.partition(), o, "k", "v" + o));
        }
        return list;
    }

    @ParameterizedTest
    @EnumSource(Database.class)
    void aBatchReadAgainWritesNothingTwice_andAnOverlappingOneOnlyItsNewRecords(Database kind) throws Exception {
        try (Db db = new Db(kind, "again")) {
            JdbcSink<String, String> sink = db.sink("g", false, null);
            assertEquals(Map.of(), sink.storedOffsets(Set.of(P0, P1)), "nothing stored: read from Kafka's offsets");
            List<ConsumerRecord<String, String>> batch = new ArrayList<>(records(P0, 0, 10));
            batch.addAll(records(P1, 0, 4));
            sink.write(batch, Map.of(P0, 10L, P1, 4L));
            assertEquals(14, db.count(""));

            sink.write(batch, Map.of(P0, 10L, P1, 4L)); // the same batch, RETRY after a crash before Kafka's commit
            assertEquals(14, db.count(""), "nothing twice");

            sink.write(records(P0, 5, 15), Map.of(P0, 15L));
            assertEquals(19, db.count(""), "only offsets 10 to 14 were new");
            assertEquals(15, db.count(" WHERE part = 0"));
            assertEquals(Map.of(P0, 15L, P1, 4L), sink.storedOffsets(Set.of(P0, P1)));

            sink.write(List.of(), Map.of(P1, 9L)); // a batch of duplicates alone still moves the offsets
            assertEquals(Map.of(P0, 15L, P1, 9L), sink.storedOffsets(Set.of(P0, P1)));
            sink.write(List.of(), Map.of(P1, 7L)); // never backwards
            assertEquals(9L, sink.storedOffsets(Set.of(P1)).get(P1));
        }
    }

    @ParameterizedTest
    @EnumSource(Database.class)
    void aFailingWriterLeavesRowsAndOffsetsAsTheyWere_andGroupsKeepTheirOffsetsApart(Database kind) throws Exception {
        try (Db db = new Db(kind, "failing")) {
            db.sink("g", false, null).write(records(P0, 0, 3), Map.of(P0, 3L));
            SQLException failed = assertThrows(
                    SQLException.class, () -> db.sink("g", true, null).write(records(P0, 3, 6), Map.of(P0, 6L)));
            assertTrue(failed.getMessage().contains("injected"), failed.getMessage());
            assertEquals(3, db.count(""), "rolled back");
            assertEquals(Map.of(P0, 3L), db.sink("g", false, null).storedOffsets(Set.of(P0)));

            JdbcSink<String, String> other = db.sink("other-group", false, null);
            assertEquals(Map.of(), other.storedOffsets(Set.of(P0)), "another group's offsets are its own");
            other.write(records(P0, 0, 3), Map.of(P0, 3L));
            assertEquals(6, db.count(""), "another group applies the records for itself");
        }
    }

    /**
     * Two consumers that both believe they own partition 0 write the same batch at once: the second waits on the
     * partition's row, then finds its offsets stored and writes nothing. Also when the partition has no row yet:
     * then one of the two inserts fails, and the loop would read that batch again.
     */
    @ParameterizedTest
    @EnumSource(Database.class)
    void twoConsumersWritingOnePartitionAtOnceApplyEachRecordOnce(Database kind) throws Exception {
        try (Db db = new Db(kind, "zombie")) {
            db.sink("g", false, null).write(records(P0, 0, 1), Map.of(P0, 1L)); // the partition's row exists
            ExecutorService pool = Executors.newFixedThreadPool(2);
            try {
                CountDownLatch firstInside = new CountDownLatch(1);
                Future<?> first = pool.submit(() -> {
                    db.sink("g", false, firstInside).write(records(P0, 1, 20), Map.of(P0, 20L));
                    return null;
                });
                firstInside.await();
                Future<?> second = pool.submit(() -> {
                    db.sink("g", false, null).write(records(P0, 1, 20), Map.of(P0, 20L));
                    return null;
                });
                first.get();
                second.get();
            } finally {
                pool.shutdownNow();
            }
            assertEquals(20, db.count(""), "each record once");
            assertEquals(20, distinctOffsets(db));
        }
    }

    private static long distinctOffsets(Db db) throws SQLException {
        try (Connection c = db.connect()) {
            return Postgres.number(c, "SELECT count(DISTINCT off) FROM applied");
        }
    }
}
