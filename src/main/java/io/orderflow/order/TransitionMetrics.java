package io.orderflow.order;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.orderflow.order.domain.OrderEvent;
import io.quarkus.runtime.Startup;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.EnumMap;
import java.util.Map;

/** {@code orderflow_transitions_total{event, outcome}}: applied, duplicate or illegal; every series from startup. */
@Startup
@ApplicationScoped
public class TransitionMetrics {

    public enum Outcome {
        APPLIED, DUPLICATE, ILLEGAL
    }

    private final Map<OrderEvent, Map<Outcome, Counter>> counters = new EnumMap<>(OrderEvent.class);

    public TransitionMetrics(MeterRegistry registry) {
        for (OrderEvent event : OrderEvent.values()) {
            Map<Outcome, Counter> byOutcome = new EnumMap<>(Outcome.class);
            for (Outcome outcome : Outcome.values()) {
                byOutcome.put(outcome, Counter.builder("orderflow.transitions")
                        .description("Transition requests by event and outcome")
                        .tag("event", event.name()).tag("outcome", outcome.name().toLowerCase())
                        .register(registry));
            }
            counters.put(event, byOutcome);
        }
    }

    public void count(OrderEvent event, Outcome outcome) {
        counters.get(event).get(outcome).increment();
    }
}
