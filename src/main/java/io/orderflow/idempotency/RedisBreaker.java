package io.orderflow.idempotency;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.smallrye.faulttolerance.api.CircuitBreakerState;
import io.smallrye.faulttolerance.api.Guard;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.util.TypeLiteral;
import java.time.temporal.ChronoUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;
import org.eclipse.microprofile.faulttolerance.exceptions.CircuitBreakerOpenException;
import org.jboss.logging.Logger;

/**
 * Keeps a failing Redis from costing every keyed request its timeout: SmallRye Fault Tolerance's circuit breaker
 * around each shutter command. After {@code idempotency.redis.breaker-failures} failures or timeouts in a row it
 * opens and refuses every command without calling Redis for {@code idempotency.redis.breaker-open}; then it lets one
 * command probe (commands arriving meanwhile are refused too), a success closes it and a failure opens it again.
 *
 * <p>The guard runs where the command is subscribed — the event loop — with no thread offload, no description (so
 * SmallRye's own per-invocation metrics stay off: the shutter's counters are what the alerts read) and no retry or
 * timeout of its own (the shutter bounds each command itself).
 */
final class RedisBreaker {

    /** The log category the shutter had under its former name, which log filters and alerts may name. */
    private static final Logger LOG = Logger.getLogger("io.orderflow.idempotency.RedisShutter");

    /** One literal for every command: the guard only needs to know it guards a Uni, whatever the Uni emits. */
    private static final TypeLiteral<Uni<?>> UNI = new TypeLiteral<>() {
    };

    private final Guard guard;
    private final Counter openings;
    private final String openFor;
    private final AtomicBoolean healthy = new AtomicBoolean(true);
    private volatile CircuitBreakerState state = CircuitBreakerState.CLOSED;

    RedisBreaker(IdempotencyConfig.Redis config, MeterRegistry registry) {
        this.openings = Counter.builder("orderflow.idempotency.redis.breaker.openings")
                .description("Times Redis failed often enough in a row to be skipped for a while")
                .register(registry);
        this.openFor = config.breakerOpen().toString();
        // a failure ratio of 1 over a window of n: the last n commands all failed, i.e. n failures in a row
        this.guard = Guard.create()
                .withCircuitBreaker().requestVolumeThreshold(Math.max(1, config.breakerFailures())).failureRatio(1.0)
                .delay(config.breakerOpen().toMillis(), ChronoUnit.MILLIS).successThreshold(1)
                .onStateChange(this::changed).done()
                .build();
    }

    /**
     * {@code command} through the breaker; while it is open (or half-open with its probe out) the answer is a
     * {@link CircuitBreakerOpenException} and {@code command} is never called.
     */
    @SuppressWarnings("unchecked")
    <T> Uni<T> call(Supplier<Uni<T>> command) {
        Supplier<Uni<?>> any = command::get;
        return (Uni<T>) guard.get(any, UNI);
    }

    /** True when {@code failure} is the breaker refusing a command, not Redis failing one. */
    static boolean refused(Throwable failure) {
        return failure instanceof CircuitBreakerOpenException;
    }

    /** Logs only the failure that opened the breaker (a busy moment must not flood the log). */
    void failed(Throwable failure) {
        if (!refused(failure) && state == CircuitBreakerState.OPEN && healthy.getAndSet(false)) {
            LOG.warnf("Redis failing (%s); idempotency goes to the database, Redis is probed every %s",
                    failure.toString(), openFor);
        }
    }

    /** True while the breaker is open: commands are refused without calling Redis. */
    boolean isOpen() {
        return state == CircuitBreakerState.OPEN;
    }

    private void changed(CircuitBreakerState next) {
        state = next;
        if (next == CircuitBreakerState.OPEN) {
            openings.increment();
        } else if (next == CircuitBreakerState.CLOSED && !healthy.getAndSet(true)) {
            LOG.info("Redis answers again; the idempotency fast path is back");
        }
    }
}
