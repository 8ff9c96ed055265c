package io.orderflow.common;

import io.smallrye.health.api.AsyncHealthCheck;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.Readiness;
import org.hibernate.reactive.mutiny.Mutiny;
import org.jboss.logging.Logger;

/**
 * Readiness: PostgreSQL answers a {@code select 1} on the service's own pool within a second (the probes give up
 * after two). It replaces Quarkus's datasource checks ({@code quarkus.datasource.health.enabled=false}), whose
 * public output carried the driver's message ("down - connection failed: Connection refused: /10.0.0.7:5432"). This
 * one says {@code postgresql: up} or {@code down}; the reason goes to the log, once each time the state changes.
 */
@Readiness
@ApplicationScoped
public class DatabaseHealthCheck implements AsyncHealthCheck {

    private static final Logger LOG = Logger.getLogger(DatabaseHealthCheck.class);
    private static final Duration TIMEOUT = Duration.ofSeconds(1);

    private final Mutiny.SessionFactory sessions;
    private final AtomicBoolean up = new AtomicBoolean(true);

    public DatabaseHealthCheck(Mutiny.SessionFactory sessions) {
        this.sessions = sessions;
    }

    @Override
    public Uni<HealthCheckResponse> call() {
        return sessions.withStatelessSession(s -> s.createNativeQuery("select 1").getSingleResult())
                .ifNoItem().after(TIMEOUT).fail()
                .map(ignored -> {
                    if (!up.getAndSet(true)) {
                        LOG.info("PostgreSQL answers the readiness check again");
                    }
                    return state(true);
                })
                .onFailure().recoverWithItem(failure -> {
                    if (up.getAndSet(false)) {
                        LOG.warnf("PostgreSQL does not answer the readiness check (%s); readiness is DOWN",
                                failure.toString());
                    }
                    return state(false);
                });
    }

    private static HealthCheckResponse state(boolean answers) {
        return HealthCheckResponse.named("database").status(answers).withData("postgresql", answers ? "up" : "down")
                .build();
    }
}
