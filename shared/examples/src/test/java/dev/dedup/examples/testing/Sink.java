package dev.dedup.examples.testing;

import dev.dedup.examples.sink.AggregateSink;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * What a pipeline wrote, checked against {@link Traffic}: the sink's aggregates, and per id how many times a
 * transaction applied it (the {@code audit} table, written in the sink's own transactions by {@link #AUDIT}).
 */
public final class Sink {

    /** Counts every applied id inside the sink's transaction. */
    public static final AggregateSink.Audit AUDIT = Sink::audit;

    private static void audit(Connection c, Collection<String> ids) throws SQLException {
        // which transaction applied how many ids; a Spark sink's transaction has just set its batch id
        try (PreparedStatement s = c.prepareStatement(
                "INSERT INTO audit_writes (batch, ids) SELECT (SELECT max(last_batch) FROM sink_batches), ?")) {
            s.setInt(1, ids.size());
            s.executeUpdate();
        }
        if (ids.isEmpty()) {
            return;
        }
        List<String> sorted = ids.stream().sorted().toList();
        try (PreparedStatement s = c.prepareStatement("INSERT INTO audit (id, times) VALUES (?, 1) ON CONFLICT (id)"
                + " DO UPDATE SET times = audit.times + 1")) {
            for (String id : sorted) {
                s.setString(1, id);
                s.addBatch();
            }
            s.executeBatch();
        }
    }

    /** A database of its own with the {@link AggregateSink}'s tables and the audit tables. */
    public static Postgres createDatabase() throws SQLException {
        Postgres db = Postgres.createDatabase("pipeline");
        try {
            new AggregateSink(db.url(), AggregateSink.Audit.NONE).createTables();
            createAuditTable(db);
            return db;
        } catch (SQLException | RuntimeException e) {
            db.close();
            throw e;
        }
    }

    public static void createAuditTable(Postgres db) throws SQLException {
        try (Connection c = db.connect();
                Statement s = c.createStatement()) {
            s.execute("CREATE TABLE IF NOT EXISTS audit (id text PRIMARY KEY, times int NOT NULL)");
            s.execute(
                    "CREATE TABLE IF NOT EXISTS audit_writes (seq bigserial PRIMARY KEY, batch bigint, ids int NOT NULL)");
        }
    }

    /** The comparison: lost ids, ids counted more than once, ids that never existed, and the aggregates' verdict. */
    public record Check(int expected, int applied, int lost, int countedTwice, int unknown, boolean aggregatesExact) {
        public boolean exact() {
            return lost == 0 && countedTwice == 0 && unknown == 0 && aggregatesExact;
        }

        @Override
        public String toString() {
            return "expected " + expected + " ids, applied " + applied + ": lost " + lost + ", counted twice "
                    + countedTwice + ", unknown " + unknown + ", aggregates " + (aggregatesExact ? "exact" : "WRONG");
        }
    }

    public static Check check(Postgres db, Traffic traffic) throws SQLException {
        return check(db, traffic, ids -> {});
    }

    /** {@code lostIds} receives the ids that were never applied (for the comparison with Spark's own dedup). */
    public static Check check(Postgres db, Traffic traffic, java.util.function.Consumer<Set<String>> lostIds)
            throws SQLException {
        return compare(applied(db), traffic, aggregatesExact(db, traffic), lostIds);
    }

    /**
     * A sink's {@code times} (per id, how many times its transactions applied it) against the traffic's messages;
     * {@code lostIds} receives the ids never applied.
     */
    public static Check compare(
            Map<String, Integer> times,
            Traffic traffic,
            boolean aggregatesExact,
            java.util.function.Consumer<Set<String>> lostIds) {
        Set<String> expected = new HashSet<>();
        traffic.messages().forEach(m -> expected.add(m.id()));
        Set<String> lost = new HashSet<>(expected);
        lost.removeAll(times.keySet());
        int twice = (int) times.entrySet().stream()
                .filter(e -> e.getValue() > 1 && expected.contains(e.getKey()))
                .count();
        int unknown = (int)
                times.keySet().stream().filter(id -> !expected.contains(id)).count();
        lostIds.accept(lost);
        int applied = times.values().stream().mapToInt(Integer::intValue).sum();
        return new Check(expected.size(), applied, lost.size(), twice, unknown, aggregatesExact);
    }

    /** Per id, how many times the sink's transactions applied it (its {@code audit} table). */
    public static Map<String, Integer> applied(Postgres db) throws SQLException {
        Map<String, Integer> times = new HashMap<>();
        try (Connection c = db.connect();
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT id, times FROM audit")) {
            while (rs.next()) {
                times.put(rs.getString(1), rs.getInt(2));
            }
        }
        return times;
    }

    /** How many of {@code ids} were written as each kind of copy (a diagnosis of what was lost or doubled). */
    public static Map<Traffic.Kind, Long> byKind(Traffic traffic, Set<String> ids) {
        Map<Traffic.Kind, Long> out = new java.util.EnumMap<>(Traffic.Kind.class);
        for (Traffic.Copy c : traffic.copies()) {
            if (ids.contains(c.message().id())) {
                out.merge(c.kind(), 1L, Long::sum);
            }
        }
        return out;
    }

    /** The sink's transactions in commit order: Spark batch id (null for other sinks) and ids applied. */
    public static List<String> writes(Postgres db) throws SQLException {
        List<String> out = new java.util.ArrayList<>();
        try (Connection c = db.connect();
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT batch, ids FROM audit_writes ORDER BY seq")) {
            while (rs.next()) {
                out.add("batch " + rs.getObject(1) + ": " + rs.getInt(2) + " ids");
            }
        }
        return out;
    }

    /** Ids applied more than once. */
    public static Set<String> countedTwice(Postgres db) throws SQLException {
        Set<String> out = new HashSet<>();
        try (Connection c = db.connect();
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT id FROM audit WHERE times > 1")) {
            while (rs.next()) {
                out.add(rs.getString(1));
            }
        }
        return out;
    }

    private static boolean aggregatesExact(Postgres db, Traffic traffic) throws SQLException {
        Map<String, Map<Long, long[]>> expected = traffic.expectedAggregates();
        Map<String, Map<Long, long[]>> actual = new HashMap<>();
        try (Connection c = db.connect();
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT app, minute, events, amount FROM event_counts")) {
            while (rs.next()) {
                actual.computeIfAbsent(rs.getString(1), k -> new HashMap<>())
                        .put(rs.getTimestamp(2).getTime(), new long[] {rs.getLong(3), rs.getLong(4)});
            }
        }
        return sameAggregates(expected, actual);
    }

    /** Whether two sets of aggregates (per app, per minute: events and amount) are the same. */
    static boolean sameAggregates(Map<String, Map<Long, long[]>> expected, Map<String, Map<Long, long[]>> actual) {
        if (!expected.keySet().equals(actual.keySet())) {
            return false;
        }
        for (String app : expected.keySet()) {
            Map<Long, long[]> e = expected.get(app);
            Map<Long, long[]> a = actual.get(app);
            if (!e.keySet().equals(a.keySet())) {
                return false;
            }
            for (Long minute : e.keySet()) {
                if (e.get(minute)[0] != a.get(minute)[0] || e.get(minute)[1] != a.get(minute)[1]) {
                    return false;
                }
            }
        }
        return true;
    }

    /** The sum of {@code sink_owners.attempts - 1}: records a share group processed again after their output was written. */
    public static long reprocessedOwners(Postgres db) throws SQLException {
        try (Connection c = db.connect()) {
            return Postgres.number(c, "SELECT coalesce(sum(attempts - 1), 0) FROM sink_owners");
        }
    }

    private Sink() {}
}
