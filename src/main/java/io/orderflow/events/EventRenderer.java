package io.orderflow.events;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.orderflow.common.NativeValues;
import io.orderflow.common.TraceContext;
import io.orderflow.order.TransitionCommand;
import io.orderflow.order.api.OrderView;
import io.orderflow.order.domain.Order;
import io.orderflow.order.domain.OrderStatus;
import io.orderflow.order.persistence.OrderMapping;
import jakarta.enterprise.context.ApplicationScoped;
import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.time.Instant;
import java.util.Locale;
import java.util.UUID;

/**
 * Turns the rows an event is made of into its CloudEvent (structured JSON mode), the same way wherever it is read:
 * the feed, an order's events, the Redis Stream, webhooks. {@code data.order} is the API's own {@link OrderView} of
 * the order as it stood at the event's version ({@link OrderMapping#atVersion}), so it reads exactly like
 * {@code GET /orders/{id}} did then; a refund's {@code data} is what its statement wrote. The CloudEvents
 * distributed-tracing extension ({@code traceparent}, {@code tracestate}) carries the trace of the request that made
 * the change, when it was traced. Written in one pass with a generator: every event the stream and webhooks carry is
 * rendered here, so its cost is the events' cost.
 */
@ApplicationScoped
public class EventRenderer {

    /** The rows of one event, as the feed's statements return them (see {@link Feed}). */
    record Source(long position, char kind, UUID orderId, long seq, String event, String from, String to,
            Instant transitionAt, String changeSource, String transitionTrace, long sideId, String sideType,
            Instant sideAt, String sideData, String sideTrace, String legacyPayload, String customerId,
            String currency, long amount, String items, Instant createdAt, String snapshot) {

        /** The columns of {@code row} from {@code first} on: position, kind, order id, then {@link Feed}'s sources. */
        static Source of(Object[] row, int first) {
            Object[] r = new Object[22];
            System.arraycopy(row, first, r, 0, 22);
            return new Source(NativeValues.number(r[0]), r[1].toString().charAt(0), NativeValues.uuid(r[2]),
                    NativeValues.number(r[3]), (String) r[4], (String) r[5], (String) r[6],
                    NativeValues.instant(r[7]), (String) r[8], (String) r[9], NativeValues.number(r[10]),
                    (String) r[11], NativeValues.instant(r[12]), (String) r[13], (String) r[14], (String) r[15],
                    (String) r[16], r[17] == null ? null : r[17].toString().trim(), NativeValues.number(r[18]),
                    (String) r[19], NativeValues.instant(r[20]), (String) r[21]);
        }
    }

    /** A creation's {@code data.event}, beside the table's events. */
    static final String CREATE = "CREATE";

    private final ObjectMapper json;
    private final OrderMapping orders;
    private final String source;

    public EventRenderer(ObjectMapper json, OrderMapping orders, EventsConfig config) {
        this.json = json;
        this.orders = orders;
        this.source = config.source();
    }

    FeedEvent render(Source row) {
        try {
            return switch (row.kind()) {
                case 't' -> transition(row);
                case 's' -> row.sideData() == null ? creation(row) : refund(row);
                default -> legacy(row);
            };
        } catch (IOException e) {
            throw new UncheckedIOException("event " + row.kind() + " of order " + row.orderId() + " cannot be written",
                    e);
        }
    }

    private FeedEvent transition(Source row) throws IOException {
        UUID id = EventIds.transition(row.orderId(), row.seq());
        String type = EventTypes.ORDER_PREFIX + row.event().toLowerCase(Locale.ROOT);
        Order order = orders.atVersion(row.orderId(), row.customerId(), row.currency(), row.amount(), row.items(),
                row.createdAt(), row.to(), row.seq(), row.transitionAt(), row.snapshot());
        StringWriter out = new StringWriter(1536);
        try (JsonGenerator g = json.getFactory().createGenerator(out)) {
            envelope(g, row, id, type, row.transitionAt(), row.transitionTrace());
            g.writeStartObject();
            g.writeStringField("orderId", row.orderId().toString());
            g.writeStringField("event", row.event());
            g.writeStringField("from", row.from());
            g.writeStringField("to", row.to());
            g.writeNumberField("version", row.seq());
            g.writeStringField("source", row.changeSource());
            g.writeFieldName("order");
            json.writeValue(g, OrderView.of(order));
            g.writeEndObject();
            g.writeEndObject();
        }
        return new FeedEvent(row.position(), id, type, row.orderId(), row.transitionAt(), out.toString(),
                row.transitionTrace());
    }

    private FeedEvent creation(Source row) throws IOException {
        UUID id = EventIds.side(row.sideId());
        Order order = orders.atVersion(row.orderId(), row.customerId(), row.currency(), row.amount(), row.items(),
                row.createdAt(), OrderStatus.CREATED.name(), 0, row.createdAt(), null);
        StringWriter out = new StringWriter(1024);
        try (JsonGenerator g = json.getFactory().createGenerator(out)) {
            envelope(g, row, id, row.sideType(), row.sideAt(), row.sideTrace());
            g.writeStartObject();
            g.writeStringField("orderId", row.orderId().toString());
            g.writeStringField("event", CREATE);
            g.writeNullField("from");
            g.writeStringField("to", OrderStatus.CREATED.name());
            g.writeNumberField("version", 0);
            g.writeStringField("source", TransitionCommand.API);
            g.writeFieldName("order");
            json.writeValue(g, OrderView.of(order));
            g.writeEndObject();
            g.writeEndObject();
        }
        return new FeedEvent(row.position(), id, row.sideType(), row.orderId(), row.sideAt(), out.toString(),
                row.sideTrace());
    }

    private FeedEvent refund(Source row) throws IOException {
        UUID id = EventIds.side(row.sideId());
        StringWriter out = new StringWriter(1024);
        try (JsonGenerator g = json.getFactory().createGenerator(out)) {
            envelope(g, row, id, row.sideType(), row.sideAt(), row.sideTrace());
            // the stored data is PostgreSQL's jsonb text: read and written again, so it reads like every other body
            json.writeTree(g, json.readTree(row.sideData()));
            g.writeEndObject();
        }
        return new FeedEvent(row.position(), id, row.sideType(), row.orderId(), row.sideAt(), out.toString(),
                row.sideTrace());
    }

    /** An event of the former outbox: its stored CloudEvent, written out as every other body is. */
    private FeedEvent legacy(Source row) throws IOException {
        JsonNode event = json.readTree(row.legacyPayload());
        return new FeedEvent(row.position(), UUID.fromString(event.get("id").asText()), event.get("type").asText(),
                row.orderId(), Instant.parse(event.get("time").asText()), json.writeValueAsString(event), null);
    }

    /** The CloudEvent's attributes, up to the name {@code data}: the caller writes its value and ends the event. */
    private void envelope(JsonGenerator g, Source row, UUID id, String type, Instant time, String trace)
            throws IOException {
        g.writeStartObject();
        g.writeStringField("specversion", "1.0");
        g.writeStringField("id", id.toString());
        g.writeStringField("source", source);
        g.writeStringField("type", type);
        g.writeStringField("subject", row.orderId().toString());
        g.writeFieldName("time");
        json.writeValue(g, time);
        g.writeStringField("datacontenttype", "application/json");
        TraceContext.parse(trace).ifPresent(context -> {
            try {
                g.writeStringField("traceparent", context.traceparent());
                if (context.tracestate() != null) {
                    g.writeStringField("tracestate", context.tracestate());
                }
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        });
        g.writeFieldName("data");
    }
}
