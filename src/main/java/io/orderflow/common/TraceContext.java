package io.orderflow.common;

import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanContext;
import io.opentelemetry.api.trace.TraceFlags;
import io.opentelemetry.api.trace.TraceState;
import io.opentelemetry.api.trace.TraceStateBuilder;
import io.opentelemetry.context.Context;
import java.util.Optional;
import java.util.StringJoiner;
import java.util.regex.Pattern;

/**
 * The W3C trace context of the request that made a change, kept with the change's event so that the event carries
 * it (the CloudEvents distributed-tracing extension) and a consumer can link its work to the request. Stored as one
 * text: the {@code traceparent}, then a line break and the {@code tracestate} when there is one.
 */
public record TraceContext(String traceparent, String tracestate) {

    private static final Pattern TRACEPARENT = Pattern.compile("00-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}");

    /** The current span's context as stored, or null when no span is current (tracing off, background work). */
    public static String current() {
        SpanContext context = Span.current().getSpanContext();
        if (!context.isValid()) {
            return null;
        }
        String parent = "00-" + context.getTraceId() + "-" + context.getSpanId() + "-" + context.getTraceFlags().asHex();
        TraceState state = context.getTraceState();
        if (state.isEmpty()) {
            return parent;
        }
        StringJoiner members = new StringJoiner(",");
        state.forEach((key, value) -> members.add(key + "=" + value));
        return parent + "\n" + members;
    }

    /** As a remote parent: what a span started from it continues. */
    public Context asParent() {
        String[] parts = traceparent.split("-");
        TraceStateBuilder state = TraceState.builder();
        if (tracestate != null) {
            for (String member : tracestate.split(",")) {
                int equals = member.indexOf('=');
                if (equals > 0) {
                    state.put(member.substring(0, equals).trim(), member.substring(equals + 1).trim());
                }
            }
        }
        return Context.root().with(Span.wrap(SpanContext.createFromRemoteParent(parts[1], parts[2],
                TraceFlags.fromHex(parts[3], 0), state.build())));
    }

    /** A stored context; empty when there is none or it is not a version-00 traceparent. */
    public static Optional<TraceContext> parse(String stored) {
        if (stored == null) {
            return Optional.empty();
        }
        int cut = stored.indexOf('\n');
        String parent = cut < 0 ? stored : stored.substring(0, cut);
        if (!TRACEPARENT.matcher(parent).matches()) {
            return Optional.empty();
        }
        return Optional.of(new TraceContext(parent, cut < 0 ? null : stored.substring(cut + 1)));
    }
}
