package io.orderflow.common;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.orderflow.common.problem.Problem;
import io.orderflow.common.problem.ProblemException;
import io.orderflow.common.problem.ProblemType;
import io.quarkus.runtime.Startup;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import org.hibernate.reactive.mutiny.Mutiny;

/**
 * The one way into PostgreSQL: Hibernate Reactive stateless sessions on the reactive pool, one per unit of work.
 * Repositories hand it their work (an HQL read, a native single-statement write); a unit of work is one statement
 * (one round trip) on the hot paths, without explicit BEGIN/COMMIT where a single statement (with data-modifying
 * CTEs) is already atomic. Counts the units it runs ({@code orderflow_db_statements_total}).
 *
 * <p>Load shedding: at most {@link DbConfig#maxPending()} units wait at once; beyond that a request fails at once
 * with 503 and Retry-After ({@code orderflow_db_shed_total}). Every statement has a timeout, PostgreSQL's own. A
 * unit that got no answer may still have committed: that is safe, because its retry is answered by the idempotency
 * layers. A unit whose connection broke is sent again by {@link ResendPolicy} when its {@link ResendSafety} kind
 * makes that safe.
 */
// @Startup: its metrics exist from startup, at zero, for the alerts (k8s/monitoring)
@Startup
@ApplicationScoped
public class Db {

    private static final Duration ANSWER_GRACE = Duration.ofSeconds(1);

    private final Mutiny.SessionFactory sessions;
    private final DbConfig config;
    private final ResendPolicy resends;
    private final Counter statements;
    private final Counter shed;
    private final AtomicInteger pending = new AtomicInteger();

    public Db(Mutiny.SessionFactory sessions, DbConfig config, ResendPolicy resends, MeterRegistry registry) {
        this.sessions = sessions;
        this.config = config;
        this.resends = resends;
        this.statements = Counter.builder("orderflow.db.statements")
                .description("Units of database work (one statement each on the hot paths) sent by the repositories")
                .register(registry);
        this.shed = Counter.builder("orderflow.db.shed")
                .description("Statements refused with 503 because too many were already waiting")
                .register(registry);
        registry.gauge("orderflow.db.pending", pending);
    }

    /**
     * Runs {@code work} in a stateless session of its own (no persistence context, autocommit); after a broken
     * connection it is sent again only if it cannot have done anything ({@link ResendSafety#WHEN_NOTHING_DONE}).
     */
    public <T> Uni<T> run(Function<Mutiny.StatelessSession, Uni<T>> work) {
        return run(ResendSafety.WHEN_NOTHING_DONE, work);
    }

    /**
     * Runs {@code work} in one transaction (BEGIN, its statements, COMMIT) of a stateless session of its own: for
     * background work that must hold locks across statements and another system's answer (the event relay). Not
     * shed, never re-sent (its caller retries on its next round) and not counted with the requests' units of work.
     * Each statement is bounded by PostgreSQL's {@code statement_timeout} (every connection's, see
     * {@link PostgresPoolCreator}), not by a timeout on the whole: cancelling a transaction midway leaves Hibernate
     * Reactive closing a live one (HR000090), while a statement PostgreSQL cancels fails the transaction, which rolls
     * back cleanly.
     */
    public <T> Uni<T> transaction(Function<Mutiny.StatelessSession, Uni<T>> work) {
        return sessions.withStatelessTransaction(work);
    }

    /**
     * Runs one statement of background work (a worker's claim) in a stateless session of its own, autocommit: not
     * shed, never re-sent (its caller retries on its next round) and not counted with the requests' units of work.
     */
    public <T> Uni<T> background(Function<Mutiny.StatelessSession, Uni<T>> work) {
        return sessions.withStatelessSession(work).ifNoItem().after(answerDeadline()).fail();
    }

    /** As {@link #run(Function)}, re-sent after a broken connection as {@code resend} allows. */
    public <T> Uni<T> run(ResendSafety resend, Function<Mutiny.StatelessSession, Uni<T>> work) {
        return Uni.createFrom().deferred(() -> {
            if (pending.incrementAndGet() > config.maxPending()) {
                pending.decrementAndGet();
                shed.increment();
                return Uni.createFrom().failure(new ProblemException(Problem.of(ProblemType.SERVICE_UNAVAILABLE,
                        "The service is at capacity; retry shortly"), "1"));
            }
            statements.increment();
            return resends.send(resend, reached -> sessions.withStatelessSession(session -> {
                reached.run();
                return work.apply(session);
            }).ifNoItem().after(answerDeadline()).fail()).onTermination().invoke(pending::decrementAndGet);
        });
    }

    /**
     * How long a unit waits for its answer: PostgreSQL ends a statement at the statement timeout and answers so, and
     * this later bound is for a database that stopped answering at all. Given up on first, a statement would run on
     * and hold up the requests that draw its connection next.
     */
    private Duration answerDeadline() {
        return config.statementTimeout().plus(ANSWER_GRACE);
    }
}
