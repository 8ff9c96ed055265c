package io.orderflow.support;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.UUID;

/** Reads the {@code @QuarkusTest}s' database ({@link TestServices}) directly, so tests assert the rows and not only what the API says. */
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

    /** The first column of every row, as text. */
    public static List<String> strings(String sql, Object... params) {
        return run(sql, params, ps -> {
            List<String> found = new ArrayList<>();
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    found.add(rs.getString(1));
                }
            }
            return found;
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
    public static List<InvariantChecker.Violation> violations(Collection<String> orderIds) {
        return checker().check(orderIds.stream().map(UUID::fromString).toList());
    }

    public static InvariantChecker checker() {
        TestServices.Postgres pg = TestServices.get().postgres();
        return new InvariantChecker(jdbcUrl(), pg.user(), pg.password());
    }

    /** The {@code @QuarkusTest}s' database on the test PostgreSQL. */
    public static String jdbcUrl() {
        return TestServices.get().postgres().jdbcUrl(TestServices.QUARKUS_DATABASE);
    }

    /** A new connection to the {@code @QuarkusTest}s' database; the caller closes it. */
    public static Connection connect() throws SQLException {
        return TestServices.get().postgres().connect(TestServices.QUARKUS_DATABASE);
    }

    private static <T> T run(String sql, Object[] params, Work<T> work) {
        try (Connection c = connect(); PreparedStatement ps = c.prepareStatement(sql)) {
            for (int i = 0; i < params.length; i++) {
                ps.setObject(i + 1, params[i]);
            }
            return work.run(ps);
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }
}
