package io.orderflow.support;

import io.orderflow.payment.PaymentSandbox;
import io.quarkus.test.junit.QuarkusTestProfile;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * One application for two groups of tests whose settings do not disturb each other, so that Quarkus builds and
 * starts it once instead of twice (about 13 s each time):
 * <ul>
 * <li>tracing turned on (as an OTLP endpoint turns it on in production), the spans kept in memory
 * ({@link InMemorySpans}, injected as an {@code InMemorySpanExporter}), the providers played by the
 * {@link PaymentSandbox}: TracingTest, WebhookTracingTest;</li>
 * <li>the replica's linger on, as in production (the other tests look at one idempotency layer at a time):
 * ReplicaLingerTest.</li>
 * </ul>
 * The tracing tests never repeat a key, and the linger test never looks at a span.
 */
public class TracedWithLinger implements QuarkusTestProfile {

    @Override
    public Map<String, String> getConfigOverrides() {
        // spans are exported in batches, every 5 s by default: sooner here, so the test waits little for them
        return Map.of("quarkus.otel.sdk.disabled", "false", "quarkus.otel.bsp.schedule.delay", "50ms",
                "quarkus.log.category.\"io.orderflow.transitions\".level", "INFO",
                "idempotency.replica.linger", "30s", "idempotency.replica.replay-linger", "30s");
    }

    @Override
    public Set<Class<?>> getEnabledAlternatives() {
        return Set.of(InMemorySpans.class);
    }

    @Override
    public List<TestResourceEntry> testResources() {
        return List.of(new TestResourceEntry(PaymentSandbox.class));
    }
}
