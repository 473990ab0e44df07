package dev.dedup.examples.testing;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.UUID;

/**
 * A database of its own on the machine's PostgreSQL service ({@code 127.0.0.1:5432}, user {@code postgres}, trust
 * authentication; override with {@code -Dpipeline.pg.url=jdbc:postgresql://host:port/ -Dpipeline.pg.user=...}),
 * created with a unique name and dropped by {@link #close()}.
 */
public final class Postgres implements AutoCloseable {

    private static final String SERVER = System.getProperty("pipeline.pg.url", "jdbc:postgresql://127.0.0.1:5432/");
    private static final String USER = System.getProperty("pipeline.pg.user", "postgres");
    private static final String PASSWORD = System.getProperty("pipeline.pg.password", "");

    private final String name;

    private Postgres(String name) {
        this.name = name;
    }

    public static Postgres createDatabase(String prefix) throws SQLException {
        String name =
                prefix + "_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
        try (Connection c = DriverManager.getConnection(SERVER + "postgres", USER, PASSWORD);
                Statement s = c.createStatement()) {
            s.execute("CREATE DATABASE " + name);
        }
        return new Postgres(name);
    }

    /** A JDBC URL with the credentials, for code that takes one string (the examples, child processes). */
    public String url() {
        return SERVER + name + "?user=" + USER + (PASSWORD.isEmpty() ? "" : "&password=" + PASSWORD);
    }

    public Connection connect() throws SQLException {
        return DriverManager.getConnection(url());
    }

    /** The number {@code query} answers (its first column, first row) on {@code c}, of any JDBC database. */
    public static long number(Connection c, String query) throws SQLException {
        try (Statement s = c.createStatement();
                ResultSet rs = s.executeQuery(query)) {
            rs.next();
            return rs.getLong(1);
        }
    }

    @Override
    public void close() throws SQLException {
        try (Connection c = DriverManager.getConnection(SERVER + "postgres", USER, PASSWORD);
                Statement s = c.createStatement()) {
            s.execute("DROP DATABASE IF EXISTS " + name + " WITH (FORCE)");
        }
    }
}
