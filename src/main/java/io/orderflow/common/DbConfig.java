package io.orderflow.common;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;
import java.time.Duration;

/** Bounds on the service's use of PostgreSQL, so overload answers a fast 503 instead of growing a queue. */
@ConfigMapping(prefix = "orders.database")
public interface DbConfig {

    /** Statements allowed in flight (running or waiting for a pooled connection); beyond it requests are shed. */
    @WithDefault("1024")
    int maxPending();

    /** Longest wait for one statement's answer; past it the request fails with 503 and may be retried. */
    @WithDefault("5s")
    Duration statementTimeout();

    /**
     * Longest a pooled connection may sit idle inside an open transaction before PostgreSQL ends its session and
     * releases its locks: a transaction abandoned midway (a request given up on, a bug) never holds rows for long.
     */
    @WithDefault("30s")
    Duration idleInTransactionTimeout();

    /**
     * How long a statement whose connection broke is sent again (when that is safe, see {@link ResendSafety}) before
     * the request fails with 503: a planned switchover must fit in it.
     */
    @WithDefault("10s")
    Duration resendWithin();
}
