package io.orderflow.common;

import io.vertx.pgclient.PgException;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import org.hibernate.JDBCException;
import org.hibernate.exception.ConstraintViolationException;

/**
 * What a failure says about the database, read down its cause chain: Hibernate Reactive and Mutiny wrap the driver's
 * answer ({@link PgException}) once or several times, so every question about it walks the same chain, here.
 */
public final class DatabaseFailures {

    /** Deep enough for any wrapping seen; a bound, because a cause chain may loop. */
    private static final int MAX_DEPTH = 32;

    private DatabaseFailures() {
    }

    /** The failure and its causes, outermost first. */
    public static List<Throwable> causes(Throwable failure) {
        List<Throwable> chain = new ArrayList<>();
        for (Throwable t = failure; t != null && chain.size() < MAX_DEPTH && !chain.contains(t); t = t.getCause()) {
            chain.add(t);
        }
        return chain;
    }

    /**
     * The SQLSTATE of a database failure, as the reactive driver reports it ({@link PgException}) or as Hibernate
     * Reactive wraps it ({@link JDBCException}); null for a failure that is not the database's answer.
     */
    public static String sqlState(Throwable failure) {
        for (Throwable t : causes(failure)) {
            if (t instanceof PgException pg && pg.getSqlState() != null) {
                return pg.getSqlState();
            }
            if (t instanceof JDBCException jdbc && jdbc.getSQLState() != null) {
                return jdbc.getSQLState();
            }
            if (t instanceof SQLException sql && sql.getSQLState() != null) {
                return sql.getSQLState();
            }
        }
        return null;
    }

    /** The constraint a database failure names (a unique index refusing a row, say), or null. */
    public static String constraint(Throwable failure) {
        for (Throwable t : causes(failure)) {
            String constraint = t instanceof PgException pg ? pg.getConstraint()
                    : t instanceof ConstraintViolationException cve ? cve.getConstraintName() : null;
            if (constraint != null) {
                return constraint;
            }
        }
        return null;
    }
}
