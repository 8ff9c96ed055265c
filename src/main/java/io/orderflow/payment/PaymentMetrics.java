package io.orderflow.payment;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.orderflow.payment.anomalies.PaymentAnomaly;
import io.orderflow.payment.reconcile.ReconciliationAnswers;
import io.orderflow.payment.spi.ProviderCalls;
import io.orderflow.payment.spi.ProviderOutcome;
import io.quarkus.runtime.Startup;
import io.smallrye.faulttolerance.api.CircuitBreakerMaintenance;
import io.smallrye.faulttolerance.api.CircuitBreakerState;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.List;
import java.util.Locale;

/**
 * Registers the payment counters the alerts and the dashboard read (k8s/monitoring) at startup, at zero, so that a
 * rate or an increase has a series to work on before the first event: Prometheus cannot tell "none yet" from "not
 * exported". The counters are incremented where things happen (Acknowledgements, Reconciler, Anomalies, ProviderCalls);
 * the circuit gauge reads each provider's breaker on every scrape.
 */
@Startup
@ApplicationScoped
public class PaymentMetrics {

    /** Notifications that were not applied: a signature that failed, a refusal, a transient failure. */
    static final List<String> NOTIFICATION_FAILURES = List.of("rejected", "refused", "transient");
    /** What the janitor hears about a stale attempt (Reconciler, ReconciliationAnswers). */
    static final List<String> RECONCILIATION_OUTCOMES = List.of("answered", "pending", "no-answer",
            ReconciliationAnswers.QUERY_DECLINED);

    public PaymentMetrics(PaymentProviders providers, MeterRegistry registry) {
        for (String provider : providers.names()) {
            NOTIFICATION_FAILURES.forEach(outcome -> registry.counter("orderflow.payments.notifications",
                    "provider", provider, "outcome", outcome));
            RECONCILIATION_OUTCOMES.forEach(outcome -> registry.counter("orderflow.payments.reconciliation",
                    "provider", provider, "outcome", outcome));
        }
        for (PaymentAnomaly.Kind kind : PaymentAnomaly.Kind.values()) {
            registry.counter("orderflow.payments.anomalies", "kind", kind.label);
        }
        for (String provider : providers.names()) {
            for (String operation : ProviderCalls.OPERATIONS) {
                for (ProviderOutcome.Status status : ProviderOutcome.Status.values()) {
                    registry.counter(ProviderCalls.CALLS_METRIC, "provider", provider, "operation", operation,
                            "status", status.name().toLowerCase(Locale.ROOT));
                }
            }
            Gauge.builder(CIRCUIT_OPEN, () -> circuitOpen(provider)).tag("provider", provider)
                    .description("1 while calls to the provider are paused by its circuit breaker (ProviderCalls)")
                    .register(registry);
        }
    }

    static final String CIRCUIT_OPEN = "orderflow.payments.provider.circuit.open";

    /** The breaker is named after its provider (ProviderCalls.guard); none yet means none has opened. */
    private static double circuitOpen(String provider) {
        try {
            return CircuitBreakerMaintenance.get().currentState(provider) == CircuitBreakerState.OPEN ? 1 : 0;
        } catch (IllegalArgumentException noBreakerYet) {
            return 0;
        }
    }
}
