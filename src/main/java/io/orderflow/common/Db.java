package io.orderflow.common;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.Row;
import io.vertx.mutiny.sqlclient.RowSet;
import io.vertx.mutiny.sqlclient.Tuple;
import jakarta.enterprise.context.ApplicationScoped;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;

/**
 * The reactive PostgreSQL pool, as the hot paths use it: one prepared statement per round trip, no explicit
 * BEGIN/COMMIT where a single statement (with data-modifying CTEs) is already atomic. Counts the statements it
 * sends ({@code orderflow_db_statements_total}) so tests and operators can see which requests reach the database.
 */
@ApplicationScoped
public class Db {

    private final Pool pool;
    private final Counter statements;

    public Db(Pool pool, MeterRegistry registry) {
        this.pool = pool;
        this.statements = Counter.builder("orderflow.db.statements")
                .description("SQL statements sent by the order, payment and idempotency repositories")
                .register(registry);
    }

    public Uni<RowSet<Row>> execute(String sql, Tuple params) {
        statements.increment();
        return pool.preparedQuery(sql).execute(params);
    }

    public Uni<RowSet<Row>> execute(String sql) {
        statements.increment();
        return pool.preparedQuery(sql).execute();
    }

    public static OffsetDateTime ts(Instant instant) {
        return instant == null ? null : instant.atOffset(ZoneOffset.UTC);
    }

    public static Instant instant(Row row, String column) {
        OffsetDateTime value = row.getOffsetDateTime(column);
        return value == null ? null : value.toInstant();
    }
}
