package io.orderflow.common;

import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanBuilder;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.api.trace.Tracer;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Instance;
import java.util.function.BiConsumer;
import java.util.function.Consumer;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * One span around a piece of asynchronous work: started when the work is subscribed to, ended when it ends (item,
 * failure or cancellation), a child of whatever span is current then (none in scheduled work: a root span). A
 * failure marks it failed with {@code error.type}, the exception's simple class name. While tracing is off
 * ({@code quarkus.otel.sdk.disabled}) the work is returned as it is: the SDK left on its own would still build and
 * drop a span per call.
 */
@ApplicationScoped
public class Spans {

    /** What went wrong, in OpenTelemetry's semantic conventions: an exception's class, an HTTP status code... */
    public static final AttributeKey<String> ERROR_TYPE = AttributeKey.stringKey("error.type");

    /** Null while tracing is off. */
    private final Tracer tracer;

    public Spans(@ConfigProperty(name = "quarkus.otel.sdk.disabled", defaultValue = "false") boolean off,
            Instance<Tracer> tracer) {
        this.tracer = off ? null : tracer.get();
    }

    /**
     * {@code work}, traced as a span named {@code name}: {@code start} sets its kind and attributes before it starts,
     * {@code onItem} what the item says (more attributes, {@link #failed}).
     */
    public <T> Uni<T> traced(String name, Consumer<SpanBuilder> start, Uni<T> work, BiConsumer<Span, T> onItem) {
        if (tracer == null) {
            return work;
        }
        return Uni.createFrom().deferred(() -> {
            SpanBuilder builder = tracer.spanBuilder(name);
            start.accept(builder);
            Span span = builder.startSpan();
            return work.invoke(item -> onItem.accept(span, item))
                    .onFailure().invoke(failure -> failed(span, failure.getClass().getSimpleName()))
                    .onTermination().invoke(span::end);
        });
    }

    /** Marks {@code span} failed, for the reason {@code errorType}. */
    public static void failed(Span span, String errorType) {
        span.setStatus(StatusCode.ERROR).setAttribute(ERROR_TYPE, errorType);
    }
}
