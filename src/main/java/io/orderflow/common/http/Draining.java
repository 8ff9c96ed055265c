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
 * answer. So from {@link #MARGIN} before Quarkus starts draining (the end of its shutdown delay, or a pause of that
 * length when there is no delay) every new request except the health probes is answered {@code 503 service-unavailable} with
 * {@code Retry-After: 1} and {@code Connection: close}, and does nothing; the requests already running are the ones
 * Quarkus waits for. Whatever a client gets after that — a 503 or a refused connection — changed nothing, and its
 * retry (to another replica) is safe.
 */
@ApplicationScoped
public class Draining {

    private static final Logger LOG = Logger.getLogger(Draining.class);
    /** Ahead of everything, {@link EdgeLimits} included. */
    private static final int FIRST = Integer.MIN_VALUE + 50;
    /** How long before Quarkus drains new work stops (the shutdown delay's last moment, or a pause without one). */
    static final Duration MARGIN = Duration.ofSeconds(1);

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

    /**
     * SIGTERM: readiness is DOWN now; load balancers get the shutdown delay to stop sending here. New work stops
     * {@link #MARGIN} before Quarkus drains. Without a delay (a preStop sleep did the waiting) that margin is taken
     * here, on the shutdown thread, before Quarkus goes on: clients still sending on keep-alive connections get a
     * 503 with {@code Connection: close} — an answer, not a closed connection — before the server closes.
     */
    void shutdownDelayStarted(@Observes ShutdownDelayInitiatedEvent event) {
        long wait = delay.minus(MARGIN).toMillis();
        if (wait > 0) {
            vertx.setTimer(wait, ignored -> stopNewWork());
            return;
        }
        stopNewWork();
        try {
            Thread.sleep(MARGIN.minus(delay.isNegative() ? Duration.ZERO : delay).toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
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
                .endClosing(context.request());
    }
}
