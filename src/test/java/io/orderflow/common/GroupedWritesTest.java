package io.orderflow.common;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.orderflow.common.problem.ProblemException;
import io.orderflow.support.Await;
import io.orderflow.support.Parallel;
import io.smallrye.mutiny.Uni;
import io.vertx.core.Context;
import io.vertx.core.Vertx;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/** The lanes of group commit. */
class GroupedWritesTest {

    @Test
    void shouldFreeTheLaneOfAStatementWhoseSupplierThrowsBeforeReturningIt() throws Exception {
        Vertx vertx = Vertx.vertx();
        try {
            // two statements in flight, as in production: two leaked lanes would stop the shape for good
            GroupedWrites<String, String, String> writes = new GroupedWrites<>("test.batch", "writes",
                    (shape, batch) -> Uni.createFrom().item(Map.of()), () -> 64, () -> 2, () -> 1024,
                    () -> Duration.ofMinutes(1), new SimpleMeterRegistry());
            Context context = vertx.getOrCreateContext();
            Supplier<Uni<String>> throwing = () -> {
                throw new IllegalStateException("the statement could not be built");
            };
            for (int i = 0; i < 2; i++) {
                Throwable failure = submitOn(context, writes, "thrower-" + i, throwing).handle((item, error) -> error)
                        .get(10, TimeUnit.SECONDS);
                assertInstanceOf(IllegalStateException.class, failure, "the throw is this write's failure");
            }
            List<String> next = List.of(submitOn(context, writes, "a", () -> Uni.createFrom().item("a done"))
                    .get(10, TimeUnit.SECONDS), submitOn(context, writes, "b", () -> Uni.createFrom().item("b done"))
                    .get(10, TimeUnit.SECONDS));
            assertEquals(List.of("a done", "b done"), next, "the lane still runs statements");
        } finally {
            vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
        }
    }

    /**
     * A full queue refuses at once (issue 43, item 8): with one statement in flight and room for three, five writes
     * sent at once from five event loops leave three waiting and two refused with 503 and Retry-After, counted as
     * shed; once the statement returns, the three leave together, and the refused ones were never sent.
     */
    @Test
    void shouldRefuseWritesBeyondTheBoundOfTheQueueWith503AndRetryAfter() throws Exception {
        Vertx vertx = Vertx.vertx();
        try {
            SimpleMeterRegistry registry = new SimpleMeterRegistry();
            List<List<Object>> batches = new CopyOnWriteArrayList<>();
            GroupedWrites<String, String, String> writes = new GroupedWrites<>("test.bound", "writes",
                    (shape, batch) -> {
                        batches.add(List.copyOf(batch));
                        return Uni.createFrom().item(batch.stream().collect(Collectors.toMap(w -> (Object) w,
                                w -> w + " batched")));
                    }, () -> 64, () -> 1, () -> 3, () -> Duration.ofMinutes(1), registry);
            CompletableFuture<Void> release = new CompletableFuture<>();
            CompletableFuture<String> blocking = submitOn(vertx.getOrCreateContext(), writes, "blocking",
                    () -> Uni.createFrom().completionStage(release.thenApply(done -> "blocking done")));
            Await.until(() -> registry.find("test.bound.rows").summary().count() == 1, "the first write to leave");

            List<CompletableFuture<String>> sent = Parallel.run(5, i -> submitOn(vertx.getOrCreateContext(), writes,
                    "w" + i, () -> Uni.createFrom().item("alone")));
            Await.until(() -> sent.stream().filter(CompletableFuture::isDone).count() == 2, "two refusals");

            List<ProblemException> refused = sent.stream().filter(CompletableFuture::isDone)
                    .map(f -> (ProblemException) f.handle((item, error) -> error).join()).toList();
            for (ProblemException refusal : refused) {
                assertEquals(503, refusal.problem().status());
                assertEquals("1", refusal.retryAfter());
            }
            assertEquals(2.0, registry.find("test.bound.shed").tag("why", "full").counter().count());
            release.complete(null);
            assertEquals("blocking done", blocking.get(10, TimeUnit.SECONDS));
            List<String> answered = new ArrayList<>();
            for (CompletableFuture<String> write : sent) {
                String answer = write.handle((item, error) -> error == null ? item : null).get(10, TimeUnit.SECONDS);
                if (answer != null) {
                    answered.add(answer);
                }
            }
            assertEquals(3, answered.size(), answered.toString());
            assertEquals(1, batches.size(), "the three waiting left together: " + batches);
            assertEquals(3, batches.get(0).size());
        } finally {
            vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
        }
    }

    /**
     * A waiting write has a deadline (issue 43, item 8): while the statement in flight holds its lane, a write that
     * waited past it is refused with 503 and Retry-After, and it is never sent once the lane moves again.
     */
    @Test
    void shouldRefuseAWriteThatWaitedPastItsDeadlineAndNeverSendIt() throws Exception {
        Vertx vertx = Vertx.vertx();
        try {
            SimpleMeterRegistry registry = new SimpleMeterRegistry();
            AtomicInteger sentLater = new AtomicInteger();
            GroupedWrites<String, String, String> writes = new GroupedWrites<>("test.deadline", "writes",
                    (shape, batch) -> {
                        sentLater.addAndGet(batch.size());
                        return Uni.createFrom().item(Map.of());
                    }, () -> 64, () -> 1, () -> 1024, () -> Duration.ofMillis(200), registry);
            CompletableFuture<Void> release = new CompletableFuture<>();
            Context context = vertx.getOrCreateContext();
            CompletableFuture<String> blocking = submitOn(context, writes, "blocking",
                    () -> Uni.createFrom().completionStage(release.thenApply(done -> "blocking done")));
            CompletableFuture<String> waiting = submitOn(context, writes, "waiting", () -> {
                sentLater.incrementAndGet();
                return Uni.createFrom().item("sent");
            });

            Throwable refused = waiting.handle((item, error) -> error).get(10, TimeUnit.SECONDS);

            assertInstanceOf(ProblemException.class, refused);
            assertEquals(503, ((ProblemException) refused).problem().status());
            assertEquals("1", ((ProblemException) refused).retryAfter());
            assertFalse(blocking.isDone(), "refused while the statement in flight still held the lane");
            assertEquals(1.0, registry.find("test.deadline.shed").tag("why", "deadline").counter().count());
            release.complete(null);
            assertEquals("blocking done", blocking.get(10, TimeUnit.SECONDS));
            assertEquals("after", submitOn(context, writes, "after", () -> Uni.createFrom().item("after"))
                    .get(10, TimeUnit.SECONDS), "the lane runs on");
            assertEquals(0, sentLater.get(), "the refused write was never sent");
        } finally {
            vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
        }
    }

    /** Submits a write from a Vert.x context, as a request does. */
    private static CompletableFuture<String> submitOn(Context context, GroupedWrites<String, String, String> writes,
            String identity, Supplier<Uni<String>> alone) {
        CompletableFuture<String> result = new CompletableFuture<>();
        context.runOnContext(ignored -> writes.submit("shape", identity, identity, alone).subscribe()
                .with(result::complete, result::completeExceptionally));
        return result;
    }
}
