package io.orderflow.common.problem;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.orderflow.common.Reply;
import io.vertx.core.impl.NoStackTraceThrowable;
import io.vertx.pgclient.PgException;
import io.vertx.sqlclient.ClosedConnectionException;
import java.util.List;
import java.util.stream.Stream;
import org.hibernate.HibernateException;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** Which failures of the database's connection are answered as transient: 503 with Retry-After, never 500. */
class ProblemMapperTest {

    private final ProblemMapper mapper = new ProblemMapper(new ObjectMapper(), List.of());

    static Stream<Throwable> lostConnections() {
        return Stream.of(
                // a pooled connection that died while idle (the primary was killed): the command was never sent
                new HibernateException(new NoStackTraceThrowable("Connection is not active now, current status: CLOSED")),
                new HibernateException(ClosedConnectionException.INSTANCE),
                new PgException("terminating connection due to administrator command", "FATAL", "57P01", null),
                new PgException("cannot execute UPDATE in a read-only transaction", "ERROR", "25006", null));
    }

    @ParameterizedTest
    @MethodSource("lostConnections")
    void shouldAnswerALostOrMisroutedConnectionWith503AndRetryAfter(Throwable failure) {
        Reply reply = mapper.toReply(failure);
        assertEquals(503, reply.status(), failure.toString());
        assertEquals(ProblemMapper.RETRY_AFTER_SECONDS, reply.headers().get("Retry-After"));
    }

    /**
     * Every integrity constraint violation (SQLSTATE class 23), whichever constraint of the schema refused the row,
     * is a 409 conflicting-write, never a 500 (issue 43, item 4).
     */
    @ParameterizedTest
    @MethodSource("constraintViolations")
    void shouldAnswerAnIntegrityConstraintViolationWith409ConflictingWrite(Throwable failure) {
        Reply reply = mapper.toReply(failure);
        assertEquals(409, reply.status(), failure.toString());
        assertEquals(ProblemType.CONFLICTING_WRITE.uri(), mapper.toProblem(failure).type());
        assertEquals(false, reply.bodyText().contains("payment_captures"), "no constraint name: " + reply.bodyText());
    }

    static Stream<Throwable> constraintViolations() {
        return Stream.of(pg("23514", "payment_captures_refund_held"), pg("23514", "refunds_amount_check"),
                pg("23505", "provider_commands_one_cancel"), pg("23505", "payment_captures_pkey"),
                pg("23503", "refunds_order_id_fkey"), pg("23502", null), pg("23P01", null),
                new HibernateException(pg("23514", "payment_captures_refund_held")));
    }

    private static PgException pg(String state, String constraint) {
        return new PgException("violates a constraint", "ERROR", state, null) {
            @Override
            public String getConstraint() {
                return constraint;
            }
        };
    }

    @ParameterizedTest
    @MethodSource("bugs")
    void shouldAnswerAFailureThatIsABugWith500(Throwable failure) {
        assertEquals(500, mapper.toReply(failure).status(), failure.toString());
    }

    static Stream<Throwable> bugs() {
        return Stream.of(new IllegalStateException("a bug"), new HibernateException("mapping is wrong"),
                new NullPointerException());
    }
}
