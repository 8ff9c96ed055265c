package io.orderflow.support;

import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Alternative;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Singleton;

/**
 * Keeps the spans of a traced test run in memory, as Quarkus's own OpenTelemetry tests do: Quarkus exports the
 * finished spans to every SpanExporter bean (its default exporter setting, {@code cdi}) and leaves out its OTLP
 * exporter when one exists. An alternative, selected only by the profiles that trace (their getEnabledAlternatives): every
 * other test runs as shipped, with no exporter.
 */
@Alternative
@ApplicationScoped
public class InMemorySpans {

    @Produces
    @Singleton
    InMemorySpanExporter exporter() {
        return InMemorySpanExporter.create();
    }
}
