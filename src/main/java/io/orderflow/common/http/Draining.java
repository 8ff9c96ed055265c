package io.orderflow.common.http;

import io.orderflow.common.problem.Problem;
import io.orderflow.common.problem.ProblemMapper;
import io.orderflow.common.problem.ProblemType;
import io.quarkus.runtime.ShutdownDelayInitiatedEvent;
import io.quarkus.runtime.ShutdownEvent;
import io.vertx.core.Vertx;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import java.time.Duration;
import java.util.Optional;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.jboss.logging.Logger;

/**
 * Stops new work before the server stops, so that no request whose work has started loses its answer.
 *
 * <p>Quarkus drains by counting requests and closing the server when the count reaches zero; until then it still
 * accepts requests (only adding {@code Connection: close}). Under steady traffic a request can arrive in the
 * instant after the count reached zero: it started its work — a commit, even — and the closing server cut its
 * answer. So from just before Quarkus starts draining (its shutdown delay minus {@link #MARGIN}, or at once when
 * there is no delay) every new request except the health probes is answered {@code 503 service-unavailable} with
 * {@code Retry-After: 1} and {@code Connection: close}, and does nothing; the requests already running are the ones
 * Quarkus waits for. Whatever a client gets after that — a 503 or a refused connection — changed nothing, and its
 * retry (to another replica) is safe.
 */
@ApplicationScoped
public class Draining {

    private static final Logger LOG = Logger.getLogger(Draining.class);
    /** Ahead of everything, {@link EdgeLimits} included. */
    private static final int FIRST = Integer.MIN_VALUE + 50;
    /** How long before the end of the shutdown delay new work stops (less when the delay is shorter). */
    static final Duration MARGIN = Duration.ofMillis(500);

    private final Vertx vertx;
    private final ProblemMapper problems;
    private final Duration delay;
    private volatile boolean draining;

    public Draining(Vertx vertx, ProblemMapper problems,
            @ConfigProperty(name = "quarkus.shutdown.delay") Optional<Duration> delay) {
        this.vertx = vertx;
        this.problems = problems;
        this.delay = delay.orElse(Duration.ZERO);
    }

    void install(@Observes Router router) {
        router.route().order(FIRST).handler(this::admit);
    }

    /** SIGTERM: readiness is DOWN now; load balancers get the shutdown delay to stop sending here. */
    void shutdownDelayStarted(@Observes ShutdownDelayInitiatedEvent event) {
        Duration margin = delay.dividedBy(2).compareTo(MARGIN) < 0 ? delay.dividedBy(2) : MARGIN;
        long wait = delay.minus(margin).toMillis();
        if (wait < 1) {
            stopNewWork();
        } else {
            vertx.setTimer(wait, ignored -> stopNewWork());
        }
    }

    /** A backstop: when no delay listener ran, new work stops here at the latest. */
    void stopping(@Observes ShutdownEvent event) {
        stopNewWork();
    }

    public boolean draining() {
        return draining;
    }

    private void stopNewWork() {
        if (!draining) {
            draining = true;
            LOG.info("Draining: new requests are answered 503 with Connection: close; running ones finish");
        }
    }

    private void admit(RoutingContext context) {
        if (!draining || context.normalizedPath().startsWith("/q/health")) {
            context.next();
            return;
        }
        problems.toReply(Problem.of(ProblemType.SERVICE_UNAVAILABLE,
                "This instance is shutting down and takes no new work; retry (another instance will answer)"), "1")
                .endClosing(context.response());
    }
}
