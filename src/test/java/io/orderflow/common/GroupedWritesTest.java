package io.orderflow.common;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.smallrye.mutiny.Uni;
import io.vertx.core.Context;
import io.vertx.core.Vertx;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/** The lanes of group commit. */
class GroupedWritesTest {

    @Test
    void shouldFreeTheLaneOfAStatementWhoseSupplierThrowsBeforeReturningIt() throws Exception {
        Vertx vertx = Vertx.vertx();
        try {
            // two statements in flight, as in production: two leaked lanes would stop the shape for good
            GroupedWrites<String, String, String> writes = new GroupedWrites<>("test.batch", "writes",
                    (shape, batch) -> Uni.createFrom().item(Map.of()), () -> 64, () -> 2, new SimpleMeterRegistry());
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

    /** Submits a write from a Vert.x context, as a request does. */
    private static CompletableFuture<String> submitOn(Context context, GroupedWrites<String, String, String> writes,
            String identity, Supplier<Uni<String>> alone) {
        CompletableFuture<String> result = new CompletableFuture<>();
        context.runOnContext(ignored -> writes.submit("shape", identity, identity, alone).subscribe()
                .with(result::complete, result::completeExceptionally));
        return result;
    }
}
