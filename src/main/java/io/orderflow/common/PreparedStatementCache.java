package io.orderflow.common;

import io.quarkus.reactive.pg.client.PgPoolCreator;
import io.vertx.pgclient.spi.PgDriver;
import io.vertx.sqlclient.Pool;
import jakarta.inject.Singleton;

/**
 * The pool Quarkus would build, with one difference: statements up to {@value #SQL_LIMIT} characters stay in each
 * connection's prepared-statement cache ({@code quarkus.datasource.reactive.cache-prepared-statements}). The Vert.x
 * client only caches statements up to 2,048 characters by default, and a transition's statement (the rule table
 * generated from OrderTransitions, history, the dedup record, payment rows) is longer: uncached, every execution
 * would be prepared anew, one more round trip per request (RoundTripsTest pins that it is not).
 */
@Singleton
public class PreparedStatementCache implements PgPoolCreator {

    static final int SQL_LIMIT = 16_384;

    @Override
    public Pool create(Input input) {
        input.pgConnectOptionsList().forEach(options -> options.setPreparedStatementCacheSqlLimit(SQL_LIMIT));
        return PgDriver.INSTANCE.createPool(input.vertx(), input.pgConnectOptionsList(), input.poolOptions());
    }
}
