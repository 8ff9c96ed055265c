package io.orderflow.support;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.UUID;

/** Reads the test database directly, so tests assert the rows and not only what the API says. */
public final class Sql {

    private interface Work<T> {
        T run(PreparedStatement statement) throws SQLException;
    }

    private Sql() {
    }

    public static long count(String sql, Object... params) {
        return run(sql, params, ps -> {
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getLong(1);
            }
        });
    }

    public static String string(String sql, Object... params) {
        return run(sql, params, ps -> {
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? rs.getString(1) : null;
            }
        });
    }

    public static int update(String sql, Object... params) {
        return run(sql, params, PreparedStatement::executeUpdate);
    }

    /** Rows of the order's history with this event. */
    public static long historyCount(String orderId, String event) {
        return count("select count(*) from order_transitions where order_id = ? and event = ?",
                UUID.fromString(orderId), event);
    }

    /** The invariant checker's violations over these orders of the test database (empty when all is well). */
    public static java.util.List<InvariantChecker.Violation> violations(java.util.Collection<String> orderIds) {
        return new InvariantChecker(LocalServices.jdbcUrl(), "postgres", "")
                .check(orderIds.stream().map(UUID::fromString).toList());
    }

    private static <T> T run(String sql, Object[] params, Work<T> work) {
        try (Connection c = DriverManager.getConnection(LocalServices.jdbcUrl(), "postgres", "");
                PreparedStatement ps = c.prepareStatement(sql)) {
            for (int i = 0; i < params.length; i++) {
                ps.setObject(i + 1, params[i]);
            }
            return work.run(ps);
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }
}
