package io.orderflow.common;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.core.JsonParseException;
import io.smallrye.mutiny.TimeoutException;
import io.vertx.core.impl.NoStackTraceThrowable;
import io.vertx.pgclient.PgException;
import io.vertx.sqlclient.ClosedConnectionException;
import java.net.ConnectException;
import java.util.Map;
import org.hibernate.HibernateException;
import org.junit.jupiter.api.Test;

/** The SQLSTATE classes the service acts on, read through the wrappings Hibernate Reactive puts around them. */
class DatabaseFailuresTest {

    private static Throwable pg(String state) {
        return new HibernateException(new PgException("the server's message", "ERROR", state, null));
    }

    @Test
    void shouldClassifyEachStateTheServiceActsOn() {
        Map<String, String> states = Map.of("23505", "unique row", "23503", "row", "22021", "data row",
                "40001", "transient", "40P01", "transient", "53300", "transient", "57014", "timeout transient",
                "57P01", "lost transient", "08006", "lost transient", "25006", "read-only transient");
        states.forEach((state, what) -> {
            Throwable failure = pg(state);
            assertEquals(what.contains("unique"), DatabaseFailures.isUniqueViolation(failure), state);
            assertEquals(what.contains("row"), DatabaseFailures.isRowRefused(failure), state);
            assertEquals(what.contains("data"), DatabaseFailures.isDataError(failure), state);
            assertEquals(what.contains("transient"), DatabaseFailures.isTransient(failure), state);
            assertEquals(what.contains("timeout"), DatabaseFailures.isTimeout(failure), state);
            assertEquals(what.contains("lost"), DatabaseFailures.connectionLost(failure), state);
            assertEquals(what.contains("read-only"), DatabaseFailures.isReadOnly(failure), state);
        });
    }

    @Test
    void shouldTellFailuresWithoutAStateByTheirClass() {
        assertTrue(DatabaseFailures.isTimeout(new TimeoutException()));
        assertTrue(DatabaseFailures.isTimeout(new java.util.concurrent.TimeoutException()));
        assertTrue(DatabaseFailures.isTransient(new HibernateException(new java.util.concurrent.TimeoutException())));
        assertTrue(DatabaseFailures.connectionLost(new HibernateException(ClosedConnectionException.INSTANCE)));
        assertTrue(DatabaseFailures.connectionLost(new ConnectException("refused")));
        assertTrue(DatabaseFailures.connectionLost(
                new NoStackTraceThrowable("Connection is not active now, current status: CLOSED")));
        assertFalse(DatabaseFailures.connectionLost(new TimeoutException()), "the statement may still run");
        assertFalse(DatabaseFailures.isTransient(new JsonParseException(null, "a body")), "the request's fault");
        assertFalse(DatabaseFailures.isTransient(new IllegalStateException("a bug")));
    }
}
