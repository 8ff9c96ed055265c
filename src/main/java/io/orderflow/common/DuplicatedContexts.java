package io.orderflow.common;

import io.quarkus.vertx.core.runtime.context.VertxContextSafetyToggle;
import io.smallrye.common.vertx.VertxContext;
import io.smallrye.mutiny.Uni;
import io.vertx.core.Context;
import io.vertx.core.Vertx;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * Work started outside a request (a timer's tick, a delivery's completion) on a Vert.x duplicated context of its own,
 * marked safe: a Hibernate Reactive session lives in its context, so two pieces of work that share one would share a
 * session and a connection.
 */
public final class DuplicatedContexts {

    private DuplicatedContexts() {
    }

    /** Subscribes to {@code work} on a new duplicated context; its outcome goes to {@code onItem} or {@code onFailure}. */
    public static <T> void subscribe(Vertx vertx, Supplier<? extends Uni<? extends T>> work,
            Consumer<? super T> onItem, Consumer<Throwable> onFailure) {
        Context own = VertxContext.createNewDuplicatedContext(vertx.getOrCreateContext());
        VertxContextSafetyToggle.setContextSafe(own, true);
        own.runOnContext(ignored -> Uni.createFrom().<T>deferred(work::get).subscribe().with(onItem, onFailure));
    }
}
