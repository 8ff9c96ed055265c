package io.orderflow.common;

import com.fasterxml.jackson.core.JsonProcessingException;
import io.smallrye.mutiny.TimeoutException;
import io.vertx.core.VertxException;
import io.vertx.core.impl.NoStackTraceThrowable;
import io.vertx.pgclient.PgException;
import io.vertx.sqlclient.ClosedConnectionException;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.net.ConnectException;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import org.hibernate.JDBCException;
import org.hibernate.exception.ConstraintViolationException;

/**
 * What a failure says about the database, read down its cause chain: Hibernate Reactive and Mutiny wrap the driver's
 * answer ({@link PgException}) once or several times, so every question about it walks the same chain, here. The
 * SQLSTATE classes the service acts on are named here too, and nowhere else.
 */
public final class DatabaseFailures {

    /** SQLSTATEs after which the connection is gone: admin or crash shutdown, besides class 08. */
    private static final Set<String> CONNECTION_LOST = Set.of("57P01", "57P02", "57P03");
    /** The statement reached a read-only server (a standby still behind the proxy): it did nothing. */
    private static final String READ_ONLY = "25006";
    private static final String UNIQUE_VIOLATION = "23505";
    /** PostgreSQL cancelled the statement: {@code statement_timeout}. */
    private static final String QUERY_CANCELED = "57014";
    /**
     * The JDK's timeout, besides Mutiny's ({@code ifNoItem().after(...).fail()}), which has the same simple name and
     * is imported: the one class the service names in full, once, here.
     */
    private static final Class<?> FUTURE_TIMEOUT = java.util.concurrent.TimeoutException.class;

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

    /** A unique index refused the row (23505). */
    public static boolean isUniqueViolation(Throwable failure) {
        return UNIQUE_VIOLATION.equals(sqlState(failure));
    }

    /** SQLSTATE class 22 (data exception: NUL in text, invalid encoding, out of range): the request's value. */
    public static boolean isDataError(Throwable failure) {
        String state = sqlState(failure);
        return state != null && state.startsWith("22");
    }

    /**
     * SQLSTATE class 23 (integrity constraint violation: a unique, check, foreign key or not-null rule refused the
     * row).
     */
    public static boolean isIntegrityViolation(Throwable failure) {
        String state = sqlState(failure);
        return state != null && state.startsWith("23");
    }

    /** Class 22 or 23: the row's own values or a constraint refused it; another row of a batch may well pass. */
    public static boolean isRowRefused(Throwable failure) {
        String state = sqlState(failure);
        return state != null && (state.startsWith("22") || state.startsWith("23"));
    }

    /** The statement reached a read-only server (25006) and did nothing. */
    public static boolean isReadOnly(Throwable failure) {
        return READ_ONLY.equals(sqlState(failure));
    }

    /** The wait for an answer ran out, ours (a Mutiny or a java.util.concurrent timeout) or PostgreSQL's (57014). */
    public static boolean isTimeout(Throwable failure) {
        return failure instanceof TimeoutException || FUTURE_TIMEOUT.isInstance(failure)
                || QUERY_CANCELED.equals(sqlState(failure));
    }

    /** The connection broke or could not be made (a timeout is not: the statement may still run). */
    public static boolean connectionLost(Throwable failure) {
        for (Throwable t : causes(failure)) {
            String state = sqlState(t);
            if (state != null) {
                return state.startsWith("08") || CONNECTION_LOST.contains(state);
            }
            if (t instanceof ClosedConnectionException || t instanceof ConnectException
                    || (t instanceof IOException && !(t instanceof InterruptedIOException))) {
                return true;
            }
            // "Connection is not active now, current status: CLOSED": a pooled connection that died while idle
            if ((t instanceof VertxException || t instanceof NoStackTraceThrowable)
                    && t.getMessage() != null && t.getMessage().toLowerCase(Locale.ROOT).contains("connection")) {
                return true;
            }
        }
        return false;
    }

    /** Failures that say nothing about the request: a retry later may well succeed. */
    public static boolean isTransient(Throwable failure) {
        for (Throwable t : causes(failure)) {
            String state = sqlState(t);
            if (state != null) {
                return state.startsWith("08") || state.startsWith("40") || state.startsWith("53")
                        || state.startsWith("57") || state.equals(READ_ONLY);
            }
            if (t instanceof ConnectException || t instanceof TimeoutException || FUTURE_TIMEOUT.isInstance(t)
                    || t instanceof VertxException
                    // the SQL client fails a command it never sent on a closed connection with this bare Throwable
                    || t instanceof NoStackTraceThrowable || t instanceof ClosedConnectionException
                    || (t instanceof IOException && !(t instanceof JsonProcessingException))) {
                return true;
            }
        }
        return false;
    }
}
