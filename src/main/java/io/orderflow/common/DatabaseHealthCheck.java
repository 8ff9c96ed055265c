package io.orderflow.common;

import io.smallrye.health.api.AsyncHealthCheck;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;
import java.time.Duration;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.Readiness;

/**
 * Reports PostgreSQL in readiness without ever failing it. The database is shared by every replica: when it is away
 * (a failover, an outage), every replica is equally unable to write, and taking them all out of the Service at once
 * would turn each request into the ingress's own error instead of the service's 503 + Retry-After, and bring them back
 * only when the next probe passes. Readiness is about this pod (started, not draining); {@code database: degraded}
 * tells operators what goes on. Quarkus's own datasource checks are off ({@code quarkus.datasource.health.enabled}):
 * they go DOWN with the database, and the JDBC one stayed DOWN after a failover (its idle Flyway connection was dead).
 * It asks through {@link Db} like any statement (shed under overload, which also reads as degraded). The output is
 * public, so it names no exception (the reason is in the log and {@code orderflow_db_resent_total}).
 */
@Readiness
@ApplicationScoped
public class DatabaseHealthCheck implements AsyncHealthCheck {

    private static final Duration TIMEOUT = Duration.ofSeconds(1);

    private final Db db;

    public DatabaseHealthCheck(Db db) {
        this.db = db;
    }

    @Override
    public Uni<HealthCheckResponse> call() {
        return db.run(session -> session.createNativeQuery("select 1", Integer.class).getSingleResult())
                .ifNoItem().after(TIMEOUT).fail()
                .map(rows -> up("up"))
                .onFailure().recoverWithItem(failure -> up("degraded"));
    }

    private static HealthCheckResponse up(String state) {
        return HealthCheckResponse.named("database").up().withData("database", state).build();
    }
}
