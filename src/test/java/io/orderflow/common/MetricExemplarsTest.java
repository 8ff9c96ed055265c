package io.orderflow.common;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.prometheus.client.exemplars.ExemplarSampler;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * With tracing off, as shipped and in the tests' profile, the Prometheus registry gets no exemplar sampler: there is
 * never a span to name, and asking for one at every recording is what a ship paid. TracingTest checks that a
 * service that traces has one.
 */
@QuarkusTest
class MetricExemplarsTest {

    @Inject
    Optional<ExemplarSampler> exemplars;

    @Test
    void shouldSampleNoExemplarsWhileTracingIsOff() {
        assertTrue(exemplars.isEmpty(), "the registry's exemplar sampler, with tracing off: " + exemplars);
    }
}
