package io.orderflow.support;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.List;

/**
 * Row locks (on orders, or on any rows a test selects), held by a transaction of the test's own as a slow writer would hold them, until
 * {@link #release()} or {@link #close()}. Tests use them to make the service's statements wait at PostgreSQL; they
 * count only the sessions their own locks block, so the service's background work waiting elsewhere never counts.
 */
public final class RowLocks implements AutoCloseable {

    private static final String BLOCKED = "select count(*) from pg_stat_activity where ? = any(pg_blocking_pids(pid))";
    private static final String SESSIONS = "select pid || ' ' || coalesce(state, '') || ' '"
            + " || coalesce(wait_event_type, '') || '/' || coalesce(wait_event, '') || ' '"
            + " || left(coalesce(query, ''), 160) from pg_stat_activity where datname = current_database()"
            + " and pid <> pg_backend_pid()";

    private final Connection connection;
    private final int pid;

    private RowLocks(Connection connection, int pid) {
        this.connection = connection;
        this.pid = pid;
    }

    /** Locks the rows of {@code orderIds} ({@code FOR UPDATE}) in a transaction left open. */
    public static RowLocks on(List<String> orderIds) {
        return locking(connection -> {
            for (String orderId : orderIds) {
                lock(connection, "select 1 from orders where id = ?::uuid for update", orderId);
            }
        });
    }

    public static RowLocks on(String... orderIds) {
        return on(List.of(orderIds));
    }

    /** Locks the rows {@code lockingSelect} ({@code ... for update}, its one parameter {@code id}) selects. */
    public static RowLocks onRows(String lockingSelect, String id) {
        return locking(connection -> lock(connection, lockingSelect, id));
    }

    private interface Locking {
        void lock(Connection connection) throws SQLException;
    }

    private static RowLocks locking(Locking locking) {
        Connection connection = null;
        try {
            connection = Sql.connect();
            connection.setAutoCommit(false);
            locking.lock(connection);
            try (PreparedStatement select = connection.prepareStatement("select pg_backend_pid()");
                    ResultSet row = select.executeQuery()) {
                row.next();
                return new RowLocks(connection, row.getInt(1));
            }
        } catch (SQLException e) {
            closeQuietly(connection);
            throw new IllegalStateException(e);
        }
    }

    private static void lock(Connection connection, String lockingSelect, String id) throws SQLException {
        try (PreparedStatement select = connection.prepareStatement(lockingSelect)) {
            select.setString(1, id);
            select.executeQuery().close();
        }
    }

    /** Waits until exactly {@code count} sessions wait on these locks; on failure, says what every session did. */
    public void awaitWaiters(int count, String what) {
        try {
            Await.until(() -> waiters() == count, what);
        } catch (AssertionError e) {
            throw new AssertionError(e.getMessage() + "; " + waiters() + " waiting on this test's locks; sessions: "
                    + Sql.strings(SESSIONS), e);
        }
    }

    /** How many sessions wait on these locks now. */
    public long waiters() {
        return Sql.count(BLOCKED, pid);
    }

    /** Ends the transaction: the waiting statements go on. */
    public void release() {
        try {
            connection.rollback();
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    @Override
    public void close() {
        closeQuietly(connection);
    }

    private static void closeQuietly(Connection connection) {
        if (connection == null) {
            return;
        }
        try {
            connection.close();
        } catch (SQLException ignored) {
            // a lock that cannot be closed cleanly is gone with its connection anyway
        }
    }
}
