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
