package io.orderflow.support;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

/**
 * The process-level tests' own database, {@code orderflow_it} on 127.0.0.1 (ORDERFLOW_TEST_PG_HOST/PORT override the
 * address, as for the other tests; the system property {@code orderflow.it.database} the name, e.g. for two builds
 * on one machine): created when missing, or dropped and created anew so that the migrations of several replicas
 * starting together really race on an empty database.
 */
public final class ItDatabase {

    public static final String NAME = System.getProperty("orderflow.it.database", "orderflow_it");
    public static final String USER = "postgres";
    public static final String PASSWORD = "";

    private ItDatabase() {
    }

    public static String hostPort() {
        return env("ORDERFLOW_TEST_PG_HOST", "127.0.0.1") + ":" + env("ORDERFLOW_TEST_PG_PORT", "5432");
    }

    public static String jdbcUrl() {
        return "jdbc:postgresql://" + hostPort() + "/" + NAME;
    }

    public static String reactiveUrl() {
        return "postgresql://" + hostPort() + "/" + NAME;
    }

    public static Connection connect() throws SQLException {
        return DriverManager.getConnection(jdbcUrl(), USER, PASSWORD);
    }

    public static InvariantChecker checker() {
        return new InvariantChecker(jdbcUrl(), USER, PASSWORD);
    }

    public static void createIfMissing() {
        onMaintenanceDb(s -> {
            try (ResultSet rs = s.executeQuery("select 1 from pg_database where datname = '" + NAME + "'")) {
                if (rs.next()) {
                    return;
                }
            }
            s.execute("create database " + NAME);
        });
    }

    /** Drops the database (ending any session still connected to it, e.g. of an aborted earlier run) and creates it. */
    public static void recreate() {
        onMaintenanceDb(s -> {
            s.execute("drop database if exists " + NAME + " with (force)");
            s.execute("create database " + NAME);
        });
    }

    public static long count(String sql, Object... params) {
        return query(sql, params, rs -> rs.getLong(1)).get(0);
    }

    public static String string(String sql, Object... params) {
        List<String> rows = query(sql, params, rs -> rs.getString(1));
        return rows.isEmpty() ? null : rows.get(0);
    }

    public static List<String> strings(String sql, Object... params) {
        return query(sql, params, rs -> rs.getString(1));
    }

    public static int update(String sql, Object... params) {
        try (Connection c = connect(); PreparedStatement ps = c.prepareStatement(sql)) {
            bind(ps, params);
            return ps.executeUpdate();
        } catch (SQLException e) {
            throw new IllegalStateException(sql, e);
        }
    }

    public interface RowMapper<T> {
        T map(ResultSet rs) throws SQLException;
    }

    public static <T> List<T> query(String sql, Object[] params, RowMapper<T> mapper) {
        try (Connection c = connect(); PreparedStatement ps = c.prepareStatement(sql)) {
            bind(ps, params);
            try (ResultSet rs = ps.executeQuery()) {
                List<T> out = new ArrayList<>();
                while (rs.next()) {
                    out.add(mapper.map(rs));
                }
                return out;
            }
        } catch (SQLException e) {
            throw new IllegalStateException(sql, e);
        }
    }

    private static void bind(PreparedStatement ps, Object[] params) throws SQLException {
        for (int i = 0; i < params.length; i++) {
            ps.setObject(i + 1, params[i]);
        }
    }

    private interface Work {
        void run(Statement statement) throws SQLException;
    }

    private static void onMaintenanceDb(Work work) {
        try (Connection c = DriverManager.getConnection("jdbc:postgresql://" + hostPort() + "/postgres", USER,
                PASSWORD); Statement s = c.createStatement()) {
            work.run(s);
        } catch (SQLException e) {
            throw new IllegalStateException("PostgreSQL is not reachable at " + hostPort() + " or refused: "
                    + e.getMessage(), e);
        }
    }

    private static String env(String name, String fallback) {
        String value = System.getenv(name);
        return value == null || value.isBlank() ? fallback : value;
    }
}
