package io.orderflow.common;

import io.quarkus.runtime.configuration.DurationConverter;
import io.smallrye.mutiny.Uni;
import io.vertx.core.Vertx;
import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import org.jboss.logging.Logger;

/**
 * A job run every period on a Vert.x timer, a tick skipped while the previous run is still going. Quarkus's scheduler
 * looks at its triggers once a second, so {@code @Scheduled(every = "200ms")} runs once a second (and says so at
 * start-up): the jobs that need a shorter period use this instead. Each run starts on a new duplicated context marked
 * safe, as a Hibernate Reactive session needs. A job failing run after run (PostgreSQL away) logs the streak's first
 * failure at WARN and its end at INFO, not one line per tick.
 */
public final class PeriodicJob {

    private final Vertx vertx;
    private final String name;
    private final Logger log;
    private final Supplier<Uni<?>> job;
    private final String failureMessage;
    private final AtomicBoolean running = new AtomicBoolean();
    private final AtomicLong skipped = new AtomicLong();
    /** Runs failed in a row: written by one run at a time, read by whoever asks (volatile). */
    private volatile long failures;
    private volatile long timer = -1;

    private PeriodicJob(Vertx vertx, Class<?> owner, Supplier<Uni<?>> job, String failureMessage) {
        this.vertx = vertx;
        this.name = owner.getSimpleName();
        this.log = Logger.getLogger(owner);
        this.job = job;
        this.failureMessage = failureMessage;
    }

    /**
     * Starts {@code job} every {@code every} (a duration such as {@code 200ms} or {@code 5s}; {@code off} or
     * {@code disabled} never starts it). A failed run is logged as {@code failureMessage}: its cause, in the
     * category of {@code owner}, the class whose job it is.
     */
    public static PeriodicJob start(Vertx vertx, Class<?> owner, String every, Supplier<Uni<?>> job,
            String failureMessage) {
        PeriodicJob periodic = new PeriodicJob(vertx, owner, job, failureMessage);
        Duration period = period(every);
        if (period != null) {
            periodic.timer = vertx.setPeriodic(Math.max(1, period.toMillis()), tick -> periodic.tick());
        }
        return periodic;
    }

    /** The period {@code every} names, or null for {@code off}/{@code disabled}. */
    static Duration period(String every) {
        String value = every.trim().toLowerCase(Locale.ROOT);
        return value.equals("off") || value.equals("disabled") ? null : DurationConverter.parseDuration(value);
    }

    /** No run starts after this; one under way finishes. */
    public void stop() {
        if (timer >= 0) {
            vertx.cancelTimer(timer);
        }
    }

    /** Ticks that found the previous run still going. */
    long skipped() {
        return skipped.get();
    }

    private void tick() {
        if (!running.compareAndSet(false, true)) {
            skipped.incrementAndGet(); // the previous run is still going
            return;
        }
        DuplicatedContexts.subscribeUntraced(vertx, job, done -> {
            succeeded();
            running.set(false);
        }, failure -> {
            failed(failure);
            running.set(false);
        });
    }

    private void succeeded() {
        if (failures > 0) {
            log.infof("%s ran again after %d failed runs", name, failures);
            failures = 0;
        }
    }

    private void failed(Throwable failure) {
        if (failures++ == 0) {
            log.warnf("%s: %s", failureMessage, failure.toString());
        } else {
            log.debugf("%s (%d in a row): %s", failureMessage, failures, failure.toString());
        }
    }

    /** Runs failed in a row so far. */
    long failuresInARow() {
        return failures;
    }
}
