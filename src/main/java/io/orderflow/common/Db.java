package io.orderflow.common;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.Row;
import io.vertx.mutiny.sqlclient.RowSet;
import io.vertx.mutiny.sqlclient.Tuple;
import io.orderflow.common.problem.Problem;
import io.orderflow.common.problem.ProblemException;
import io.orderflow.common.problem.ProblemType;
import jakarta.enterprise.context.ApplicationScoped;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

/**
 * The reactive PostgreSQL pool, as the hot paths use it: one prepared statement per round trip, no explicit
 * BEGIN/COMMIT where a single statement (with data-modifying CTEs) is already atomic. Counts the statements it
 * sends ({@code orderflow_db_statements_total}) so tests and operators can see which requests reach the database.
 *
 * <p>Load shedding: at most {@link DbConfig#maxPending()} statements wait at once; beyond that a request fails at
 * once with 503 and Retry-After ({@code orderflow_db_shed_total}). Every statement has a timeout. A statement that
 * timed out may still have committed: that is safe, because its retry is answered by the idempotency layers.
 */
@ApplicationScoped
public class Db {

    private final Pool pool;
    private final DbConfig config;
    private final Counter statements;
    private final Counter shed;
    private final AtomicInteger pending = new AtomicInteger();

    public Db(Pool pool, DbConfig config, MeterRegistry registry) {
        this.pool = pool;
        this.config = config;
        this.statements = Counter.builder("orderflow.db.statements")
                .description("SQL statements sent by the order, payment and idempotency repositories")
                .register(registry);
        this.shed = Counter.builder("orderflow.db.shed")
                .description("Statements refused with 503 because too many were already waiting")
                .register(registry);
        registry.gauge("orderflow.db.pending", pending);
    }

    public Uni<RowSet<Row>> execute(String sql, Tuple params) {
        return bounded(() -> pool.preparedQuery(sql).execute(params));
    }

    public Uni<RowSet<Row>> execute(String sql) {
        return bounded(() -> pool.preparedQuery(sql).execute());
    }

    private Uni<RowSet<Row>> bounded(Supplier<Uni<RowSet<Row>>> statement) {
        return Uni.createFrom().deferred(() -> {
            if (pending.incrementAndGet() > config.maxPending()) {
                pending.decrementAndGet();
                shed.increment();
                return Uni.createFrom().failure(new ProblemException(Problem.of(ProblemType.SERVICE_UNAVAILABLE,
                        "The service is at capacity; retry shortly"), "1"));
            }
            statements.increment();
            return statement.get().ifNoItem().after(config.statementTimeout()).fail()
                    .onTermination().invoke(pending::decrementAndGet);
        });
    }

    public static OffsetDateTime ts(Instant instant) {
        return instant == null ? null : instant.atOffset(ZoneOffset.UTC);
    }

    public static Instant instant(Row row, String column) {
        OffsetDateTime value = row.getOffsetDateTime(column);
        return value == null ? null : value.toInstant();
    }
}
