package io.orderflow.common;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.orderflow.support.Await;
import io.orderflow.support.CapturedLog;
import io.quarkus.vertx.core.runtime.context.VertxContextSafetyToggle;
import io.smallrye.common.vertx.VertxContext;
import io.smallrye.mutiny.Uni;
import io.smallrye.mutiny.subscription.UniEmitter;
import io.vertx.core.Context;
import io.vertx.core.Vertx;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.logging.Level;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The timer the event relay and the webhook worker run on: a run at a time, each on a safe duplicated context, a
 * streak of failures not ending the job and logged twice, {@code off} never starting it, {@code stop} ending it.
 * Plain Vert.x, no Quarkus.
 */
class PeriodicJobTest {

    private Vertx vertx;

    @BeforeEach
    void startVertx() {
        vertx = Vertx.vertx();
    }

    @AfterEach
    void closeVertx() {
        vertx.close().toCompletionStage().toCompletableFuture().join();
    }

    @Test
    void shouldSkipTicksWhileARunIsStillGoingAndRunAgainOnceItEnds() {
        AtomicInteger started = new AtomicInteger();
        List<UniEmitter<? super Object>> held = new CopyOnWriteArrayList<>();
        PeriodicJob job = PeriodicJob.start(vertx, PeriodicJobTest.class, "10ms",
                () -> Uni.createFrom().emitter(emitter -> {
                    started.incrementAndGet();
                    held.add(emitter);
                }), "held failed");
        try {
            Await.until(() -> job.skipped() >= 5, "five ticks while the first run is held");
            assertEquals(1, started.get(), "no run started beside the one still going");
            held.get(0).complete(null);
            Await.until(() -> started.get() >= 2, "a run after the first ended");
        } finally {
            job.stop();
            held.forEach(emitter -> emitter.complete(null));
        }
    }

    @Test
    void shouldRunEachTimeOnANewDuplicatedContextMarkedSafe() {
        List<Context> contexts = new CopyOnWriteArrayList<>();
        List<Boolean> safe = new CopyOnWriteArrayList<>();
        PeriodicJob job = PeriodicJob.start(vertx, PeriodicJobTest.class, "10ms", () -> {
            contexts.add(Vertx.currentContext());
            safe.add(VertxContext.isOnDuplicatedContext()
                    && VertxContextSafetyToggle.isExplicitlyMarkedAsSafe(Vertx.currentContext()));
            return Uni.createFrom().voidItem();
        }, "contexts failed");
        try {
            Await.until(() -> contexts.size() >= 2, "two runs");
        } finally {
            job.stop();
        }
        assertTrue(safe.stream().allMatch(Boolean::booleanValue), "every run on a safe duplicated context: " + safe);
        assertTrue(contexts.get(0) != contexts.get(1), "each run on a context of its own");
    }

    @Test
    void shouldKeepRunningThroughFailuresLoggingTheStreaksFirstAndItsEndOnly() {
        AtomicInteger started = new AtomicInteger();
        AtomicBoolean failing = new AtomicBoolean(true);
        List<String> lines;
        try (CapturedLog log = CapturedLog.start()) {
            PeriodicJob job = PeriodicJob.start(vertx, PeriodicJobTest.class, "10ms", () -> {
                started.incrementAndGet();
                return failing.get() ? Uni.createFrom().failure(new IllegalStateException("PostgreSQL is away"))
                        : Uni.createFrom().voidItem();
            }, "Flaky round failed, it runs again");
            try {
                Await.until(() -> job.failuresInARow() >= 5, "five failed runs in a row");
                failing.set(false);
                Await.until(() -> job.failuresInARow() == 0, "a run that succeeded");
            } finally {
                job.stop();
            }
            lines = log.atLeast(Level.INFO).stream().filter(line -> line.contains(PeriodicJobTest.class.getName()))
                    .toList();
        }
        assertEquals(2, lines.size(), "one line for the streak's start, one for its end: " + lines);
        assertEquals("WARN [" + PeriodicJobTest.class.getName()
                + "] Flaky round failed, it runs again: java.lang.IllegalStateException: PostgreSQL is away",
                lines.get(0));
        assertTrue(lines.get(1).matches("INFO \\[.*\\] PeriodicJobTest ran again after \\d+ failed runs"),
                lines.get(1));
    }

    @Test
    void shouldStartNoRunAfterStop() {
        AtomicInteger started = new AtomicInteger();
        PeriodicJob job = PeriodicJob.start(vertx, PeriodicJobTest.class, "10ms", () -> {
            started.incrementAndGet();
            return Uni.createFrom().voidItem();
        }, "stopped failed");
        Await.until(() -> started.get() >= 1, "a first run");
        job.stop();
        int atStop = started.get();
        // a second job on the same period: five of its runs leave the stopped one time for five ticks
        AtomicInteger witness = new AtomicInteger();
        PeriodicJob other = PeriodicJob.start(vertx, PeriodicJobTest.class, "10ms", () -> {
            witness.incrementAndGet();
            return Uni.createFrom().voidItem();
        }, "witness failed");
        try {
            Await.until(() -> witness.get() >= 5, "five runs of another job");
        } finally {
            other.stop();
        }
        assertTrue(started.get() <= atStop + 1, "at most the run already under way at stop: " + started.get());
    }

    @Test
    void shouldReadItsPeriodAsQuarkusDurationsAndOffAsNever() {
        assertEquals(Duration.ofMillis(200), PeriodicJob.period("200ms"));
        assertEquals(Duration.ofSeconds(1), PeriodicJob.period("1s"));
        assertEquals(Duration.ofSeconds(5), PeriodicJob.period("5"));
        assertNull(PeriodicJob.period("off"));
        assertNull(PeriodicJob.period("disabled"));
    }
}
