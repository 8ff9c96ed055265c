package io.orderflow.payment.spi;

import io.micrometer.core.instrument.MeterRegistry;
import io.orderflow.common.problem.ProblemMapper;
import io.smallrye.mutiny.Uni;
import io.smallrye.mutiny.infrastructure.Infrastructure;
import jakarta.enterprise.context.ApplicationScoped;
import io.smallrye.faulttolerance.api.Guard;
import jakarta.enterprise.util.TypeLiteral;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.function.Function;
import java.util.function.Supplier;
import org.eclipse.microprofile.faulttolerance.exceptions.BulkheadException;
import org.eclipse.microprofile.faulttolerance.exceptions.CircuitBreakerOpenException;
import org.eclipse.microprofile.faulttolerance.exceptions.TimeoutException;
import org.jboss.logging.Logger;

/**
 * What every adapter does around its provider calls: run the blocking SDK on a worker thread, turn whatever
 * failure is left after the fault-tolerance layer into a {@link ProviderOutcome}, count the outcome in
 * {@code orderflow_payments_provider_calls_total{provider,operation,status}} and log what is not PROCESSED —
 * with codes and messages only, never a request or response body (they carry credentials).
 */
@ApplicationScoped
public class ProviderCalls {

    private static final Logger LOG = Logger.getLogger(ProviderCalls.class);

    /**
     * Every operation an adapter may call its provider for; {@code PaymentMetrics} registers the calls counter of
     * each (× provider × status) at startup, at zero, so a call of another name is refused here.
     */
    public static final List<String> OPERATIONS = List.of("create-payment", "resume-payment", "query-payment",
            "cancel-payment", "create-refund", "query-refund");
    public static final String CALLS_METRIC = "orderflow.payments.provider.calls";

    private final MeterRegistry registry;
    private final ProviderSpans spans;

    public ProviderCalls(MeterRegistry registry, ProviderSpans spans) {
        this.registry = registry;
        this.spans = spans;
    }

    /**
     * The provider's one guard: a timeout per call, retries of transient failures, and one circuit breaker (named
     * after the provider) shared by all of its calls. Final answers ({@link ProviderDeclined}) are neither retried
     * nor held against the provider's health.
     */
    public static Guard guard(String provider, CallSettings settings) {
        long delay = settings.retryDelay().toMillis();
        return Guard.create().withDescription(provider)
                .withTimeout().duration(settings.callTimeout().toMillis(), ChronoUnit.MILLIS).done()
                .withRetry().maxRetries(settings.maxRetries()).delay(delay, ChronoUnit.MILLIS)
                .jitter(Math.max(1, delay / 2), ChronoUnit.MILLIS)
                .retryOn(List.of(ProviderUnavailable.class, TimeoutException.class))
                .abortOn(ProviderDeclined.class).done()
                .withCircuitBreaker().name(provider).requestVolumeThreshold(settings.breakerWindow())
                .failureRatio(0.5).successThreshold(1)
                .delay(settings.breakerDelay().toMillis(), ChronoUnit.MILLIS).skipOn(ProviderDeclined.class).done()
                .build();
    }

    /**
     * One provider call: {@code request} through the provider's guard (each retry subscribes to a fresh request),
     * its answer read into an outcome, any failure left over turned into one, the outcome counted, and the whole
     * call traced as one span ({@link ProviderSpans}).
     */
    public <R, T> Uni<ProviderOutcome<T>> call(String provider, Guard guard, String operation,
            Supplier<Uni<R>> request, Function<R, ProviderOutcome<T>> read) {
        if (!OPERATIONS.contains(operation)) {
            throw new IllegalArgumentException("Not a provider operation of ProviderCalls.OPERATIONS: " + operation);
        }
        Uni<R> guarded = guard.get(request, new TypeLiteral<Uni<R>>() {
        });
        return spans.traced(provider, operation, settle(provider, operation, guarded.map(read)));
    }

    /** A blocking SDK call, subscribed on the worker pool so the event loop never waits for a provider. */
    public static <T> Uni<T> onWorker(Callable<T> call) {
        return Uni.createFrom().item(() -> {
            try {
                return call.call();
            } catch (RuntimeException e) {
                throw e;
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        }).runSubscriptionOn(Infrastructure.getDefaultWorkerPool());
    }

    /** The call's outcome, whatever happened; never a failed Uni. */
    <T> Uni<ProviderOutcome<T>> settle(String provider, String operation, Uni<ProviderOutcome<T>> call) {
        return call.onFailure().recoverWithItem(failure -> ProviderCalls.<T>outcomeOf(failure))
                .invoke(outcome -> observe(provider, operation, outcome));
    }

    public static <T> ProviderOutcome<T> outcomeOf(Throwable failure) {
        Throwable cause = ProblemMapper.unwrap(failure);
        if (cause instanceof ProviderDeclined declined) {
            return new ProviderOutcome<>(ProviderOutcome.Status.ERROR, null, declined.code(), declined.getMessage(),
                    declined.refusal());
        }
        if (cause instanceof ProviderUnavailable unavailable) {
            return ProviderOutcome.of(unavailable.mayHaveHappened() ? ProviderOutcome.Status.UNDEFINED
                    : ProviderOutcome.Status.CANCELED, unavailable.code(), unavailable.getMessage());
        }
        if (cause instanceof TimeoutException) {
            return ProviderOutcome.of(ProviderOutcome.Status.UNDEFINED, "timeout",
                    "The provider did not answer in time; the call may or may not have taken effect");
        }
        if (cause instanceof CircuitBreakerOpenException || cause instanceof BulkheadException) {
            return ProviderOutcome.of(ProviderOutcome.Status.CANCELED, "circuit-open",
                    "Calls to this provider are paused after repeated failures; nothing was sent");
        }
        LOG.errorf("Unexpected failure of a provider call: %s", cause.getClass().getName());
        return ProviderOutcome.of(ProviderOutcome.Status.UNDEFINED, "unexpected",
                "The call failed unexpectedly; its effect is unknown");
    }

    private void observe(String provider, String operation, ProviderOutcome<?> outcome) {
        registry.counter(CALLS_METRIC, "provider", provider, "operation", operation,
                "status", outcome.status().name().toLowerCase()).increment();
        if (!outcome.is(ProviderOutcome.Status.PROCESSED) && !outcome.is(ProviderOutcome.Status.PENDING)) {
            LOG.warnf("%s %s: %s%s (%s) %s", provider, operation, outcome.status(),
                    outcome.refusal() == null ? "" : " " + outcome.refusal(), outcome.code(), outcome.message());
        }
    }
}
