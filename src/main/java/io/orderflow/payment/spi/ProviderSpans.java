package io.orderflow.payment.spi;

import io.opentelemetry.api.common.AttributeKey;
import io.orderflow.common.Spans;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;

/**
 * One span per outgoing provider call ({@code "<provider> <operation>"}, e.g. {@code stripe create-payment}),
 * around the whole guarded call (its retries and timeouts included), through {@link Spans}: a child of whatever span
 * is current when the call starts, in a request the request's. It carries {@code payment.provider},
 * {@code payment.operation} and {@code payment.outcome}; an outcome other than PROCESSED or PENDING (those
 * ProviderCalls logs) marks it failed, with the provider's code (or the outcome) as {@code error.type}.
 */
@ApplicationScoped
public class ProviderSpans {

    public static final AttributeKey<String> PROVIDER = AttributeKey.stringKey("payment.provider");
    public static final AttributeKey<String> OPERATION = AttributeKey.stringKey("payment.operation");
    public static final AttributeKey<String> OUTCOME = AttributeKey.stringKey("payment.outcome");

    private final Spans spans;

    public ProviderSpans(Spans spans) {
        this.spans = spans;
    }

    /** {@code call}, traced from its subscription to its outcome (or its cancellation). */
    public <T> Uni<ProviderOutcome<T>> traced(String provider, String operation, Uni<ProviderOutcome<T>> call) {
        return spans.traced(provider + " " + operation,
                span -> span.setAttribute(PROVIDER, provider).setAttribute(OPERATION, operation), call,
                (span, outcome) -> {
                    span.setAttribute(OUTCOME, outcome.status().name());
                    if (!outcome.is(ProviderOutcome.Status.PROCESSED)
                            && !outcome.is(ProviderOutcome.Status.PENDING)) {
                        Spans.failed(span, outcome.code() == null ? outcome.status().name() : outcome.code());
                    }
                });
    }
}
