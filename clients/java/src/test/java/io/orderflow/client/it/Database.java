package io.orderflow.client.it;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;

/** The service's PostgreSQL, read directly: what the tests count is what was written, not what an answer says. */
final class Database {

    private Database() {
    }

    static Connection connect() throws SQLException {
        return DriverManager.getConnection(System.getenv("ORDERFLOW_JDBC_URL"), System.getenv("ORDERFLOW_JDBC_USER"),
                System.getenv().getOrDefault("ORDERFLOW_JDBC_PASSWORD", ""));
    }

    static long count(String sql, Object... params) {
        try (Connection c = connect(); PreparedStatement statement = c.prepareStatement(sql)) {
            for (int i = 0; i < params.length; i++) {
                statement.setObject(i + 1, params[i]);
            }
            try (ResultSet rows = statement.executeQuery()) {
                rows.next();
                return rows.getLong(1);
            }
        } catch (SQLException e) {
            throw new IllegalStateException(sql, e);
        }
    }

    /** Orders holding an item of {@code sku} (each test draws its own). */
    static long ordersWithSku(String sku) {
        return count("select count(*) from orders where items @> jsonb_build_array(jsonb_build_object('sku', ?::text))",
                sku);
    }

    /** History rows of {@code event} for the order. */
    static long historyRows(String orderId, String event) {
        return count("select count(*) from order_transitions where order_id = ?::uuid and event = ?", orderId, event);
    }
}
