package io.orderflow.support;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

/**
 * The process-level tests' own database, {@value TestServices#IT_DATABASE} on the test PostgreSQL
 * ({@link TestServices}): created when missing, or dropped and created anew so that the migrations of several
 * replicas starting together really race on an empty database.
 */
public final class ItDatabase {

    public static final String NAME = TestServices.IT_DATABASE;

    private ItDatabase() {
    }

    private static TestServices.Postgres postgres() {
        return TestServices.get().postgres();
    }

    public static String user() {
        return postgres().user();
    }

    public static String password() {
        return postgres().password();
    }

    public static String jdbcUrl() {
        return postgres().jdbcUrl(NAME);
    }

    public static String reactiveUrl() {
        return postgres().reactiveUrl(NAME);
    }

    public static Connection connect() throws SQLException {
        return postgres().connect(NAME);
    }

    public static InvariantChecker checker() {
        return new InvariantChecker(jdbcUrl(), user(), password());
    }

    public static void createIfMissing() {
        TestServices.get().createDatabaseIfMissing(NAME);
    }

    /** Drops the database (ending any session still connected to it, e.g. of an aborted earlier run) and creates it. */
    public static void recreate() {
        try (Connection c = postgres().connect("postgres"); Statement s = c.createStatement()) {
            s.execute("drop database if exists " + NAME + " with (force)");
            s.execute("create database " + NAME);
        } catch (SQLException e) {
            throw new IllegalStateException("The test PostgreSQL (" + TestServices.get() + ") refused: "
                    + e.getMessage(), e);
        }
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
}
