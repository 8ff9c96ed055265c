package io.orderflow.common;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.orderflow.common.problem.ProblemMapper;
import io.smallrye.mutiny.Uni;
import io.vertx.core.Context;
import io.vertx.core.Vertx;
import jakarta.enterprise.context.ApplicationScoped;
import java.time.Duration;
import java.util.EnumMap;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Sends a unit of database work again when its connection broke and {@link ResendSafety} says that is safe, for up to
 * {@link DbConfig#resendWithin()} (a switchover takes a few seconds), with a short growing pause between copies. The
 * pool drops a broken connection by itself, so each copy gets a new one, through whatever now routes to the primary.
 * A timeout is never re-sent: the statement may still be running. Past the bound the last failure goes to the caller
 * (a 503 with Retry-After). Counted in {@code orderflow_db_resent_total{kind}}.
 */
@ApplicationScoped
public class ResendPolicy {

    /** Reports the moment the unit's work was handed a connection (from then on the statement may reach the server). */
    public interface Attempt<T> {
        Uni<T> send(Runnable reachedDatabase);
    }

    private final Duration within;
    private final Map<ResendSafety, Counter> resent = new EnumMap<>(ResendSafety.class);

    public ResendPolicy(DbConfig config, MeterRegistry registry) {
        this.within = config.resendWithin();
        for (ResendSafety kind : ResendSafety.values()) {
            resent.put(kind, Counter.builder("orderflow.db.resent")
                    .description("Statements sent again after their connection broke, by why that was safe")
                    .tag("kind", kind.name().toLowerCase(Locale.ROOT)).register(registry));
        }
    }

    /** Runs {@code attempt}, and again while the failure allows it and the bound is not reached. */
    public <T> Uni<T> send(ResendSafety kind, Attempt<T> attempt) {
        long deadline = System.nanoTime() + within.toNanos();
        return copy(kind, attempt, deadline, 1, false, Vertx.currentContext());
    }

    private <T> Uni<T> copy(ResendSafety kind, Attempt<T> attempt, long deadline, int n, boolean earlierLost,
            Context context) {
        AtomicBoolean reached = new AtomicBoolean();
        return Uni.createFrom().deferred(() -> attempt.send(() -> reached.set(true))).onFailure()
                .recoverWithUni(failure -> {
                    Throwable cause = ProblemMapper.unwrap(failure);
                    if (earlierLost && kind == ResendSafety.KEYED && DatabaseFailures.isUniqueViolation(cause)) {
                        return Uni.createFrom().failure(new ResendSafety.FirstCopyCommitted(cause));
                    }
                    Verdict verdict = verdict(kind, reached.get(), cause);
                    Duration pause = pause(n);
                    if (verdict == Verdict.GIVE_UP || System.nanoTime() + pause.toNanos() > deadline) {
                        return Uni.createFrom().failure(failure);
                    }
                    resent.get(kind).increment();
                    boolean lost = earlierLost || verdict == Verdict.RESEND_OUTCOME_UNKNOWN;
                    return after(pause, context).chain(() -> copy(kind, attempt, deadline, n + 1, lost, context));
                });
    }

    enum Verdict {
        GIVE_UP, RESEND_NOTHING_DONE, RESEND_OUTCOME_UNKNOWN
    }

    /** What a failure allows for a unit of {@code kind} that did or did not get as far as a connection. */
    static Verdict verdict(ResendSafety kind, boolean reachedDatabase, Throwable failure) {
        if (DatabaseFailures.isReadOnly(failure)) {
            return Verdict.RESEND_NOTHING_DONE;
        }
        if (!DatabaseFailures.connectionLost(failure)) {
            return Verdict.GIVE_UP;
        }
        if (!reachedDatabase) {
            return Verdict.RESEND_NOTHING_DONE;
        }
        return kind == ResendSafety.WHEN_NOTHING_DONE ? Verdict.GIVE_UP : Verdict.RESEND_OUTCOME_UNKNOWN;
    }

    /** 50 ms, doubling, at most 500 ms: the first copy goes at once, the window of a switchover is seconds. */
    static Duration pause(int n) {
        return Duration.ofMillis(Math.min(500, 25L << Math.min(n, 5)));
    }

    /** A pause that resumes on the caller's Vert.x context (Hibernate Reactive runs only there). */
    private static Uni<Void> after(Duration pause, Context context) {
        if (context == null) {
            return Uni.createFrom().voidItem().onItem().delayIt().by(pause);
        }
        return Uni.createFrom().emitter(emitter -> context.owner().setTimer(pause.toMillis(),
                id -> context.runOnContext(ignored -> emitter.complete(null))));
    }
}
