package io.orderflow.common;

import io.prometheus.client.exemplars.ExemplarSampler;
import io.quarkus.micrometer.runtime.export.exemplars.OpentelemetryExemplarSamplerProvider;
import jakarta.annotation.Priority;
import jakarta.enterprise.inject.Alternative;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Singleton;
import java.util.Optional;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * Exemplars (the trace of one request beside a metric's sample) only while the service traces. Quarkus gives the
 * Prometheus registry its OpenTelemetry exemplar sampler whenever the OpenTelemetry extension is present, and the
 * registry asks it at every recording whether the current span is sampled; tracing is off as shipped
 * ({@link TracingSwitch}), so there is never a span, and asking cost a ship about 5% of its CPU (JFR, docs/benchmarks.md).
 */
@Singleton
public class MetricExemplars {

    @Produces
    @Singleton
    @Alternative
    @Priority(1)
    Optional<ExemplarSampler> exemplarSampler(@ConfigProperty(name = TracingSwitch.SDK_DISABLED) boolean tracingOff) {
        return tracingOff ? Optional.empty() : new OpentelemetryExemplarSamplerProvider().exemplarSampler();
    }
}
