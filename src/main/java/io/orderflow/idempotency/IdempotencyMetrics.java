package io.orderflow.idempotency;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.runtime.Startup;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.EnumMap;
import java.util.Locale;
import java.util.Map;

/** Counters of the idempotency layers, as Prometheus sees them under {@code orderflow_idempotency_*}. */
// @Startup: its metrics exist from startup, at zero, for the alerts (k8s/monitoring)
@Startup
@ApplicationScoped
public class IdempotencyMetrics {

    /** Which layer answered a repeat. */
    enum Layer {
        /** A copy of the request running on this replica handed its answer over. */
        REPLICA,
        REDIS,
        DATABASE
    }

    private final Map<Layer, Counter> replays = new EnumMap<>(Layer.class);
    private final Counter inFlight;
    private final Counter fingerprintMismatches;
    private final Counter expiredRefusals;

    public IdempotencyMetrics(MeterRegistry registry) {
        for (Layer layer : Layer.values()) {
            replays.put(layer, replays(registry, layer.name().toLowerCase(Locale.ROOT)));
        }
        inFlight = Counter.builder("orderflow.idempotency.in.flight")
                .description("Requests refused because the same key was still being processed").register(registry);
        fingerprintMismatches = Counter.builder("orderflow.idempotency.fingerprint.mismatches")
                .description("Keys reused with a different request body").register(registry);
        expiredRefusals = Counter.builder("orderflow.idempotency.expired.refusals")
                .description("Late retries refused because their key had expired").register(registry);
    }

    private static Counter replays(MeterRegistry registry, String layer) {
        return Counter.builder("orderflow.idempotency.replays").tag("layer", layer)
                .description("Stored first responses replayed to a repeated request, by the layer that answered")
                .register(registry);
    }

    void replayed(Layer layer) {
        replays.get(layer).increment();
    }

    void inFlight() {
        inFlight.increment();
    }

    void mismatch() {
        fingerprintMismatches.increment();
    }

    void expired() {
        expiredRefusals.increment();
    }
}
