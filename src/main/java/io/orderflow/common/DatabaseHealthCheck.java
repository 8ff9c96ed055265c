package io.orderflow.common;

import io.smallrye.health.api.AsyncHealthCheck;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.Readiness;
import org.jboss.logging.Logger;

/**
 * Reports PostgreSQL in readiness without ever failing it. The database is shared by every replica: when it is away
 * (a failover, an outage), every replica is equally unable to write, and taking them all out of the Service at once
 * would turn each request into the ingress's own error instead of the service's 503 + Retry-After, and bring them back
 * only when the next probe passes. Readiness is about this pod (started, not draining); {@code postgresql: degraded}
 * tells operators what goes on. Quarkus's own datasource checks are off ({@code quarkus.datasource.health.enabled}):
 * they go DOWN with the database, the JDBC one stayed DOWN after a failover (its idle Flyway connection was dead),
 * and their public output carried the driver's message with the database's address. This one asks through
 * {@link Db} like any statement (shed under overload, which also reads as degraded) and names no exception: the
 * reason goes to the log, once each time the state changes, and to {@code orderflow_db_resent_total}.
 */
@Readiness
@ApplicationScoped
public class DatabaseHealthCheck implements AsyncHealthCheck {

    private static final Logger LOG = Logger.getLogger(DatabaseHealthCheck.class);
    private static final Duration TIMEOUT = Duration.ofSeconds(1);

    private final Db db;
    private final AtomicBoolean answering = new AtomicBoolean(true);

    public DatabaseHealthCheck(Db db) {
        this.db = db;
    }

    @Override
    public Uni<HealthCheckResponse> call() {
        return db.run(session -> session.createNativeQuery("select 1", Integer.class).getSingleResult())
                .ifNoItem().after(TIMEOUT).fail()
                .map(rows -> {
                    if (!answering.getAndSet(true)) {
                        LOG.info("PostgreSQL answers the readiness check again");
                    }
                    return state("up");
                })
                .onFailure().recoverWithItem(failure -> {
                    if (answering.getAndSet(false)) {
                        LOG.warnf("PostgreSQL does not answer the readiness check (%s); the service answers 503"
                                + " + Retry-After until it does, and stays ready", failure.toString());
                    }
                    return state("degraded");
                });
    }

    private static HealthCheckResponse state(String postgresql) {
        return HealthCheckResponse.named("database").up().withData("postgresql", postgresql).build();
    }
}
