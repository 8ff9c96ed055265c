package io.orderflow.common;

import io.quarkus.runtime.configuration.DurationConverter;
import io.quarkus.vertx.core.runtime.context.VertxContextSafetyToggle;
import io.smallrye.common.vertx.VertxContext;
import io.smallrye.mutiny.Uni;
import io.vertx.core.Context;
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
 * safe, as a Hibernate Reactive session needs.
 */
public final class PeriodicJob {

    private static final Logger LOG = Logger.getLogger(PeriodicJob.class);

    private final Vertx vertx;
    private final String name;
    private final Supplier<Uni<?>> job;
    private final AtomicBoolean running = new AtomicBoolean();
    private final AtomicLong skipped = new AtomicLong();
    private volatile long timer = -1;

    private PeriodicJob(Vertx vertx, String name, Supplier<Uni<?>> job) {
        this.vertx = vertx;
        this.name = name;
        this.job = job;
    }

    /**
     * Starts {@code job} every {@code every} (a duration such as {@code 200ms} or {@code 5s}; {@code off} or
     * {@code disabled} never starts it). The job's failures are its own to handle; one that escapes is logged.
     */
    public static PeriodicJob start(Vertx vertx, String name, String every, Supplier<Uni<?>> job) {
        PeriodicJob periodic = new PeriodicJob(vertx, name, job);
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
        Context own = VertxContext.createNewDuplicatedContext(vertx.getOrCreateContext());
        VertxContextSafetyToggle.setContextSafe(own, true);
        own.runOnContext(ignored -> Uni.createFrom().deferred(job).subscribe().with(done -> running.set(false),
                failure -> {
                    running.set(false);
                    LOG.warnf("%s run failed: %s", name, failure.toString());
                }));
    }
}
