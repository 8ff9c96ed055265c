package io.orderflow.events;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.orderflow.common.NativeValues;
import io.orderflow.common.TraceContext;
import io.orderflow.order.TransitionCommand;
import io.orderflow.order.api.OrderView;
import io.orderflow.order.persistence.OrderMapping;
import jakarta.enterprise.context.ApplicationScoped;
import java.io.UncheckedIOException;
import java.time.Instant;
import java.util.Locale;
import java.util.UUID;

/**
 * Turns the rows an event is made of into its CloudEvent (structured JSON mode), the same way wherever it is read:
 * the feed, an order's events, the Redis Stream, webhooks. {@code data.order} is rendered by the API's own
 * {@link OrderView} from the order as it stood at the event's version, so it reads exactly like
 * {@code GET /orders/{id}} did then; a refund's {@code data} is what its statement wrote. The CloudEvents
 * distributed-tracing extension ({@code traceparent}, {@code tracestate}) carries the trace of the request that made
 * the change, when it was traced.
 */
@ApplicationScoped
public class EventRenderer {

    /** The rows of one event, as the feed's statements return them (see {@link Feed}). */
    record Source(long position, char kind, UUID orderId, long seq, String event, String from, String to,
            Instant transitionAt, String changeSource, String transitionTrace, long sideId, String sideType,
            Instant sideAt, String sideData, String sideTrace, String legacyPayload, String orderRow) {

        /** The columns of {@code row} from {@code first} on: position, kind, order id, then {@link Feed}'s sources. */
        static Source of(Object[] row, int first) {
            Object[] r = new Object[17];
            System.arraycopy(row, first, r, 0, 17);
            return new Source(NativeValues.number(r[0]), r[1].toString().charAt(0), NativeValues.uuid(r[2]),
                    NativeValues.number(r[3]), (String) r[4], (String) r[5], (String) r[6],
                    NativeValues.instant(r[7]), (String) r[8], (String) r[9], NativeValues.number(r[10]),
                    (String) r[11], NativeValues.instant(r[12]), (String) r[13], (String) r[14], (String) r[15],
                    (String) r[16]);
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
        return switch (row.kind()) {
            case 't' -> transition(row);
            case 's' -> row.sideData() == null ? creation(row) : refund(row);
            default -> legacy(row);
        };
    }

    private FeedEvent transition(Source row) {
        String type = EventTypes.ORDER_PREFIX + row.event().toLowerCase(Locale.ROOT);
        ObjectNode data = json.createObjectNode().put("orderId", row.orderId().toString()).put("event", row.event())
                .put("from", row.from()).put("to", row.to()).put("version", row.seq())
                .put("source", row.changeSource());
        data.set("order", order(row.orderRow()));
        return event(row, EventIds.transition(row.orderId(), row.seq()), type, row.transitionAt(),
                row.transitionTrace(), data);
    }

    private FeedEvent creation(Source row) {
        ObjectNode data = json.createObjectNode().put("orderId", row.orderId().toString()).put("event", CREATE)
                .putNull("from");
        JsonNode order = order(row.orderRow());
        data.set("to", order.get("status"));
        data.put("version", 0).put("source", TransitionCommand.API);
        data.set("order", order);
        return event(row, EventIds.side(row.sideId()), row.sideType(), row.sideAt(), row.sideTrace(), data);
    }

    private FeedEvent refund(Source row) {
        return event(row, EventIds.side(row.sideId()), row.sideType(), row.sideAt(), row.sideTrace(),
                tree(row.sideData()));
    }

    /** An event of the former outbox: its stored CloudEvent, written out as every other body is. */
    private FeedEvent legacy(Source row) {
        JsonNode event = tree(row.legacyPayload());
        return new FeedEvent(row.position(), UUID.fromString(event.get("id").asText()), event.get("type").asText(),
                row.orderId(), Instant.parse(event.get("time").asText()), write(event), null);
    }

    private FeedEvent event(Source row, UUID id, String type, Instant time, String trace, JsonNode data) {
        ObjectNode event = json.createObjectNode().put("specversion", "1.0").put("id", id.toString())
                .put("source", source).put("type", type).put("subject", row.orderId().toString());
        event.set("time", json.valueToTree(time));
        event.put("datacontenttype", "application/json");
        TraceContext.parse(trace).ifPresent(context -> {
            event.put("traceparent", context.traceparent());
            if (context.tracestate() != null) {
                event.put("tracestate", context.tracestate());
            }
        });
        event.set("data", data);
        return new FeedEvent(row.position(), id, type, row.orderId(), time, write(event), trace);
    }

    private JsonNode order(String rowJson) {
        return json.valueToTree(OrderView.of(orders.fromRowJson(rowJson)));
    }

    private JsonNode tree(String text) {
        try {
            return json.readTree(text);
        } catch (JsonProcessingException e) {
            throw new UncheckedIOException("an event's stored JSON does not parse", e);
        }
    }

    private String write(JsonNode node) {
        try {
            return json.writeValueAsString(node);
        } catch (JsonProcessingException e) {
            throw new UncheckedIOException(e);
        }
    }
}
