package io.orderflow.common;

import io.quarkus.reactive.pg.client.PgPoolCreator;
import io.vertx.pgclient.spi.PgDriver;
import io.vertx.sqlclient.Pool;
import jakarta.inject.Singleton;

/**
 * The pool Quarkus would build, with two differences:
 * <ul>
 * <li>Statements up to {@value #SQL_LIMIT} characters stay in each connection's prepared-statement cache
 * ({@code quarkus.datasource.reactive.cache-prepared-statements}). The Vert.x client only caches statements up to
 * 2,048 characters by default, and a transition's statement (the rule table generated from OrderTransitions, history,
 * the dedup record, payment rows) is longer: uncached, every execution would be prepared anew, one more round trip
 * per request (RoundTripsTest pins that it is not).</li>
 * <li>Every connection starts with {@code statement_timeout} set to {@link DbConfig#statementTimeout()}, so
 * PostgreSQL itself ends a statement that waits too long (on a lock a stray session holds, say). A timer in the
 * client alone gives up on the answer but hands the connection back with the statement still running, and every
 * request that draws that connection next waits behind it (StatementTimeoutTest).</li>
 * <li>...and with {@code idle_in_transaction_session_timeout} set to {@link DbConfig#idleInTransactionTimeout()}:
 * a transaction left open (the event relay's, given up on between its statements) cannot hold its row locks for
 * longer; PostgreSQL ends the session and the pool replaces the connection (PooledConnectionSettingsTest).</li>
 * <li>...and with {@code jit} off: every statement here is short, and one planned on stale statistics can cost more
 * than {@code jit_above_cost} and spend a third of a second compiling (measured on the feed sequencer's look-up of
 * 1,000 orders: 320 ms of JIT for 40 ms of work).</li>
 * </ul>
 */
@Singleton
public class PostgresPoolCreator implements PgPoolCreator {

    static final int SQL_LIMIT = 16_384;

    private final DbConfig config;

    public PostgresPoolCreator(DbConfig config) {
        this.config = config;
    }

    @Override
    public Pool create(Input input) {
        String timeout = Long.toString(config.statementTimeout().toMillis());
        String idleInTransaction = Long.toString(config.idleInTransactionTimeout().toMillis());
        input.pgConnectOptionsList().forEach(options -> options.setPreparedStatementCacheSqlLimit(SQL_LIMIT)
                .addProperty("statement_timeout", timeout)
                .addProperty("idle_in_transaction_session_timeout", idleInTransaction).addProperty("jit", "off"));
        return PgDriver.INSTANCE.createPool(input.vertx(), input.pgConnectOptionsList(), input.poolOptions());
    }
}
