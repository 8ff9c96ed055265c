package io.orderflow.common;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.orderflow.support.Await;
import io.quarkus.vertx.core.runtime.context.VertxContextSafetyToggle;
import io.smallrye.common.vertx.VertxContext;
import io.smallrye.mutiny.Uni;
import io.smallrye.mutiny.subscription.UniEmitter;
import io.vertx.core.Context;
import io.vertx.core.Vertx;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The timer the event relay and the webhook worker run on: a run at a time, each on a safe duplicated context, a
 * failure not ending the job, {@code off} never starting it, {@code stop} ending it. Plain Vert.x, no Quarkus.
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
        PeriodicJob job = PeriodicJob.start(vertx, "held", "10ms", () -> Uni.createFrom().emitter(emitter -> {
            started.incrementAndGet();
            held.add(emitter);
        }));
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
        PeriodicJob job = PeriodicJob.start(vertx, "contexts", "10ms", () -> {
            contexts.add(Vertx.currentContext());
            safe.add(VertxContext.isOnDuplicatedContext()
                    && VertxContextSafetyToggle.isExplicitlyMarkedAsSafe(Vertx.currentContext()));
            return Uni.createFrom().voidItem();
        });
        try {
            Await.until(() -> contexts.size() >= 2, "two runs");
        } finally {
            job.stop();
        }
        assertTrue(safe.stream().allMatch(Boolean::booleanValue), "every run on a safe duplicated context: " + safe);
        assertTrue(contexts.get(0) != contexts.get(1), "each run on a context of its own");
    }

    @Test
    void shouldKeepRunningAfterARunFailed() {
        AtomicInteger started = new AtomicInteger();
        PeriodicJob job = PeriodicJob.start(vertx, "failing", "10ms", () -> {
            started.incrementAndGet();
            return Uni.createFrom().failure(new IllegalStateException("a failure the job let escape"));
        });
        try {
            Await.until(() -> started.get() >= 3, "runs after failed ones");
        } finally {
            job.stop();
        }
    }

    @Test
    void shouldStartNoRunAfterStop() {
        AtomicInteger started = new AtomicInteger();
        PeriodicJob job = PeriodicJob.start(vertx, "stopped", "10ms", () -> {
            started.incrementAndGet();
            return Uni.createFrom().voidItem();
        });
        Await.until(() -> started.get() >= 1, "a first run");
        job.stop();
        int atStop = started.get();
        // a second job on the same period: five of its runs leave the stopped one time for five ticks
        AtomicInteger witness = new AtomicInteger();
        PeriodicJob other = PeriodicJob.start(vertx, "witness", "10ms", () -> {
            witness.incrementAndGet();
            return Uni.createFrom().voidItem();
        });
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
