package io.orderflow.payment.spi;

import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.api.trace.Tracer;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Instance;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * One span per outgoing provider call ({@code "<provider> <operation>"}, e.g. {@code stripe create-payment}),
 * around the whole guarded call (its retries and timeouts included), a child of whatever span is current when the
 * call starts: in a request, the request's. It carries {@code payment.provider}, {@code payment.operation} and
 * {@code payment.outcome}; an outcome other than PROCESSED or PENDING (those ProviderCalls logs) marks it failed.
 * While tracing is off ({@code quarkus.otel.sdk.disabled}) the call is returned as it is: the SDK left on its own
 * would still build and drop a span per call.
 */
@ApplicationScoped
public class ProviderSpans {

    public static final AttributeKey<String> PROVIDER = AttributeKey.stringKey("payment.provider");
    public static final AttributeKey<String> OPERATION = AttributeKey.stringKey("payment.operation");
    public static final AttributeKey<String> OUTCOME = AttributeKey.stringKey("payment.outcome");

    /** Null while tracing is off. */
    private final Tracer tracer;

    public ProviderSpans(@ConfigProperty(name = "quarkus.otel.sdk.disabled", defaultValue = "false") boolean off,
            Instance<Tracer> tracer) {
        this.tracer = off ? null : tracer.get();
    }

    /** {@code call}, traced from its subscription to its outcome (or its cancellation). */
    public <T> Uni<ProviderOutcome<T>> traced(String provider, String operation, Uni<ProviderOutcome<T>> call) {
        if (tracer == null) {
            return call;
        }
        return Uni.createFrom().deferred(() -> {
            Span span = tracer.spanBuilder(provider + " " + operation).setAttribute(PROVIDER, provider)
                    .setAttribute(OPERATION, operation).startSpan();
            return call.invoke(outcome -> {
                span.setAttribute(OUTCOME, outcome.status().name());
                if (!outcome.is(ProviderOutcome.Status.PROCESSED) && !outcome.is(ProviderOutcome.Status.PENDING)) {
                    span.setStatus(StatusCode.ERROR, outcome.code() == null ? "" : outcome.code());
                }
            }).onTermination().invoke(span::end);
        });
    }
}
