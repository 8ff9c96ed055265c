package io.orderflow.support;

import io.quarkus.test.junit.QuarkusTestProfile;
import java.util.Map;
import java.util.Set;

/**
 * Tracing turned on (as an OTLP endpoint turns it on in production), the spans kept in memory ({@link InMemorySpans},
 * injected as an {@code InMemorySpanExporter}). The tests that trace share this one profile, so Quarkus starts it
 * once for all of them.
 */
public class Traced implements QuarkusTestProfile {

    @Override
    public Map<String, String> getConfigOverrides() {
        // spans are exported in batches, every 5 s by default: sooner here, so the test waits little for them
        return Map.of("quarkus.otel.sdk.disabled", "false", "quarkus.otel.bsp.schedule.delay", "50ms",
                "quarkus.log.category.\"io.orderflow.transitions\".level", "INFO");
    }

    @Override
    public Set<Class<?>> getEnabledAlternatives() {
        return Set.of(InMemorySpans.class);
    }
}
