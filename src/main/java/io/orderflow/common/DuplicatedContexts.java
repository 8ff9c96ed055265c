package io.orderflow.common;

import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanContext;
import io.opentelemetry.api.trace.TraceFlags;
import io.opentelemetry.api.trace.TraceState;
import io.quarkus.opentelemetry.runtime.QuarkusContextStorage;
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
        own(vertx).runOnContext(ignored -> Uni.createFrom().<T>deferred(work::get).subscribe().with(onItem, onFailure));
    }

    /**
     * As {@link #subscribe}, for a polling round: its SQL statements and Redis commands make no spans. With tracing
     * on, every statement would otherwise be a root span of its own, and a service at rest would export nothing but
     * its polls; the round runs under a span context that is not sampled, so the spans it would start are not
     * recorded. What it does for a request keeps that request's trace (a webhook delivery parents itself on it).
     */
    public static <T> void subscribeUntraced(Vertx vertx, Supplier<? extends Uni<? extends T>> work,
            Consumer<? super T> onItem, Consumer<Throwable> onFailure) {
        Context own = own(vertx);
        // never closed: the context is the round's alone and is dropped with it
        QuarkusContextStorage.INSTANCE.attach(own, io.opentelemetry.context.Context.root().with(NOT_SAMPLED));
        own.runOnContext(ignored -> Uni.createFrom().<T>deferred(work::get).subscribe().with(onItem, onFailure));
    }

    private static final Span NOT_SAMPLED = Span.wrap(SpanContext.create("6f72646572666c6f77706f6c6c696e67",
            "706f6c6c696e6721", TraceFlags.getDefault(), TraceState.getDefault()));

    private static Context own(Vertx vertx) {
        Context own = VertxContext.createNewDuplicatedContext(vertx.getOrCreateContext());
        VertxContextSafetyToggle.setContextSafe(own, true);
        return own;
    }
}
