package io.orderflow.common;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.orderflow.common.ResendPolicy.Verdict;
import io.smallrye.mutiny.TimeoutException;
import io.smallrye.mutiny.Uni;
import io.vertx.core.impl.NoStackTraceThrowable;
import io.vertx.pgclient.PgException;
import io.vertx.sqlclient.ClosedConnectionException;
import java.net.ConnectException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.hibernate.HibernateException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** Which broken statements the service sends again itself, and that it stops at the bound. */
class ResendPolicyTest {

    private static final Throwable CLOSED = ClosedConnectionException.INSTANCE;
    private static final Throwable ADMIN_SHUTDOWN = new PgException("terminating connection due to administrator"
            + " command", "FATAL", "57P01", null);
    /** What Hibernate Reactive reports when the pool handed out a connection that had died while idle. */
    private static final Throwable DIED_IDLE = new HibernateException(
            new NoStackTraceThrowable("Connection is not active now, current status: CLOSED"));
    private static final Throwable READ_ONLY = new PgException("cannot execute UPDATE in a read-only transaction",
            "ERROR", "25006", null);
    private static final Throwable UNIQUE = new PgException("duplicate key value violates unique constraint"
            + " \"orders_pkey\"", "ERROR", "23505", null);

    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();

    @ParameterizedTest
    @EnumSource(ResendSafety.class)
    void shouldResendAnyUnitThatNeverGotAConnection(ResendSafety kind) {
        assertEquals(Verdict.RESEND_NOTHING_DONE, ResendPolicy.verdict(kind, false, CLOSED));
        assertEquals(Verdict.RESEND_NOTHING_DONE, ResendPolicy.verdict(kind, false, new ConnectException("refused")));
    }

    @ParameterizedTest
    @EnumSource(ResendSafety.class)
    void shouldResendAnyUnitThatReachedAReadOnlyStandbyBecauseItDidNothing(ResendSafety kind) {
        assertEquals(Verdict.RESEND_NOTHING_DONE, ResendPolicy.verdict(kind, true, READ_ONLY));
    }

    @ParameterizedTest
    @EnumSource(value = ResendSafety.class, names = { "READ", "KEYED", "GUARDED" })
    void shouldResendReadsKeyedAndGuardedUnitsWhoseAnswerWasLost(ResendSafety kind) {
        assertEquals(Verdict.RESEND_OUTCOME_UNKNOWN, ResendPolicy.verdict(kind, true, CLOSED));
        assertEquals(Verdict.RESEND_OUTCOME_UNKNOWN, ResendPolicy.verdict(kind, true, ADMIN_SHUTDOWN));
        assertEquals(Verdict.RESEND_OUTCOME_UNKNOWN, ResendPolicy.verdict(kind, true, DIED_IDLE));
    }

    @Test
    void shouldNotResendAPlainWriteWhoseAnswerWasLost() {
        assertEquals(Verdict.GIVE_UP, ResendPolicy.verdict(ResendSafety.WHEN_NOTHING_DONE, true, CLOSED));
        assertEquals(Verdict.GIVE_UP, ResendPolicy.verdict(ResendSafety.WHEN_NOTHING_DONE, true, ADMIN_SHUTDOWN));
    }

    @ParameterizedTest
    @EnumSource(ResendSafety.class)
    void shouldNeverResendATimeoutOrTheDatabasesRefusal(ResendSafety kind) {
        // a statement that timed out may still be running; a refusal is the database's answer, not a lost one
        assertEquals(Verdict.GIVE_UP, ResendPolicy.verdict(kind, true, new TimeoutException()));
        assertEquals(Verdict.GIVE_UP, ResendPolicy.verdict(kind, true, UNIQUE));
        assertEquals(Verdict.GIVE_UP, ResendPolicy.verdict(kind, false, new IllegalStateException("a bug")));
    }

    @Test
    void shouldSendAgainUntilTheConnectionHoldsAndCountTheCopies() {
        AtomicInteger copies = new AtomicInteger();
        String answer = policy(Duration.ofSeconds(5)).send(ResendSafety.READ, reached -> {
            reached.run();
            return copies.incrementAndGet() < 3 ? Uni.createFrom().failure(CLOSED) : Uni.createFrom().item("row");
        }).await().atMost(Duration.ofSeconds(10));
        assertEquals("row", answer);
        assertEquals(3, copies.get());
        assertEquals(2.0, registry.counter("orderflow.db.resent", "kind", "read").count());
    }

    @Test
    void shouldTellTheGateWhenAResentKeyedWriteMeetsItsOwnFirstCopy() {
        List<Throwable> answers = new ArrayList<>(List.of(CLOSED, UNIQUE));
        Throwable failure = assertThrows(ResendSafety.FirstCopyCommitted.class, () -> policy(Duration.ofSeconds(5))
                .send(ResendSafety.KEYED, reached -> {
                    reached.run();
                    return Uni.createFrom().failure(answers.remove(0));
                }).await().atMost(Duration.ofSeconds(10)));
        assertSame(UNIQUE, failure.getCause());
    }

    @Test
    void shouldPassOnAUniqueViolationWhenNoEarlierCopyWasLost() {
        // the copy before never got a connection: a unique violation now is someone else's record, not ours
        List<Throwable> answers = new ArrayList<>(List.of(CLOSED, UNIQUE));
        AtomicInteger sent = new AtomicInteger();
        Throwable failure = assertThrows(PgException.class, () -> policy(Duration.ofSeconds(5))
                .send(ResendSafety.KEYED, reached -> {
                    if (sent.incrementAndGet() > 1) {
                        reached.run();
                    }
                    return Uni.createFrom().failure(answers.remove(0));
                }).await().atMost(Duration.ofSeconds(10)));
        assertSame(UNIQUE, failure);
    }

    @Test
    void shouldGiveUpWithTheLastFailureAtTheBound() {
        AtomicInteger copies = new AtomicInteger();
        Throwable failure = assertThrows(ClosedConnectionException.class, () -> policy(Duration.ofMillis(400))
                .send(ResendSafety.GUARDED, reached -> {
                    copies.incrementAndGet();
                    return Uni.createFrom().failure(CLOSED);
                }).await().atMost(Duration.ofSeconds(10)));
        assertInstanceOf(ClosedConnectionException.class, failure);
        // pauses of 50, 100, 200, 400 ms: at most four copies fit in 400 ms (fewer on a slow machine), never endless
        assertTrue(copies.get() >= 2 && copies.get() <= 4, copies + " copies");
    }

    private ResendPolicy policy(Duration within) {
        return new ResendPolicy(new DbConfig() {
            @Override
            public int maxPending() {
                return 1024;
            }

            @Override
            public Duration statementTimeout() {
                return Duration.ofSeconds(5);
            }

            @Override
            public Duration idleInTransactionTimeout() {
                return Duration.ofSeconds(30);
            }

            @Override
            public Duration resendWithin() {
                return within;
            }
        }, registry);
    }
}
