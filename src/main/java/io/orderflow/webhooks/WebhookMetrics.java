package io.orderflow.webhooks;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.runtime.Startup;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The webhooks' series, registered at startup so that the alerts read zeros before the first delivery: attempts by
 * outcome, deliveries given up, endpoints disabled, and how late the worker's oldest due delivery was.
 */
// @Startup: the series must exist before the first endpoint is registered
@Startup
@ApplicationScoped
public class WebhookMetrics {

    /** How an attempt ended, as the {@code outcome} label says. */
    enum Outcome {
        SUCCEEDED("succeeded"), HTTP_ERROR("http-error"), TIMEOUT("timeout"), CONNECTION_ERROR("connection-error"),
        REFUSED_TARGET("refused-target");

        final String label;

        Outcome(String label) {
            this.label = label;
        }

        static Outcome of(WebhookDeliveries.Outcome outcome) {
            if (outcome.statusCode() != null) {
                return outcome.succeeded() ? SUCCEEDED : HTTP_ERROR;
            }
            String error = outcome.error() == null ? "" : outcome.error();
            return error.startsWith("refused target") ? REFUSED_TARGET
                    : error.startsWith("timeout") ? TIMEOUT : CONNECTION_ERROR;
        }
    }

    private final Map<Outcome, Counter> attempts = new EnumMap<>(Outcome.class);
    private final Counter givenUp;
    private final Counter disabled;
    private final AtomicReference<Double> lag = new AtomicReference<>(0.0);
    private final AtomicInteger paused = new AtomicInteger();
    private final AtomicInteger inFlight = new AtomicInteger();
    private final AtomicInteger held = new AtomicInteger();

    public WebhookMetrics(MeterRegistry registry) {
        for (Outcome outcome : Outcome.values()) {
            attempts.put(outcome, Counter.builder("orderflow.webhooks.attempts").tag("outcome", outcome.label)
                    .description("Webhook delivery attempts by how they ended").register(registry));
        }
        this.givenUp = Counter.builder("orderflow.webhooks.deliveries.failed")
                .description("Deliveries given up after failing for events.webhooks.retry.give-up-after")
                .register(registry);
        this.disabled = Counter.builder("orderflow.webhooks.endpoints.disabled")
                .description("Endpoints disabled after failing for events.webhooks.retry.give-up-after")
                .register(registry);
        Gauge.builder("orderflow.webhooks.delivery.lag.seconds", lag, AtomicReference::get)
                .description("Age of the oldest event not yet delivered to an endpoint this replica holds and that is"
                        + " not paused (0 when they are all up to date)")
                .register(registry);
        Gauge.builder("orderflow.webhooks.endpoints.paused", paused, AtomicInteger::get)
                .description("Endpoints this replica holds that take no new events for now: their attempts failed"
                        + " in a row, their retries probe them")
                .register(registry);
        Gauge.builder("orderflow.webhooks.endpoints.held", held, AtomicInteger::get)
                .description("Enabled endpoints this replica delivers (its share)").register(registry);
        Gauge.builder("orderflow.webhooks.in.flight", inFlight, AtomicInteger::get)
                .description("Webhook attempts under way on this replica").register(registry);
    }

    void attempted(WebhookDeliveries.Outcome outcome) {
        attempts.get(Outcome.of(outcome)).increment();
    }

    void gaveUp() {
        givenUp.increment();
    }

    void disabledEndpoint() {
        disabled.increment();
    }

    /** The dispatcher's state after a round. */
    void state(double lagSeconds, int pausedEndpoints, int attemptsInFlight, int heldEndpoints) {
        lag.set(Math.max(0, lagSeconds));
        paused.set(pausedEndpoints);
        inFlight.set(attemptsInFlight);
        held.set(heldEndpoints);
    }
}
