package io.orderflow.client;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.orderflow.client.generated.model.OrderCloudEvent;
import io.orderflow.client.generated.model.RefundCloudEvent;
import java.io.UncheckedIOException;

/**
 * One CloudEvent of the feed, typed by its {@code type}. (The contract's {@code anyOf} gives the generated union no
 * way to tell an order's event from a refund's, both having the same envelope: it would read a refund's event as
 * an order's and drop its data. So the reader keeps the JSON and types it here.)
 */
public final class FeedEvent {

    private static final String ORDER = "io.orderflow.order.";
    private static final String REFUND = "io.orderflow.refund.";

    private final JsonNode json;
    private final ObjectMapper mapper;

    FeedEvent(JsonNode json, ObjectMapper mapper) {
        this.json = json;
        this.mapper = mapper;
    }

    /** Unique and stable across the feed, the stream and webhooks: deduplicate on it. */
    public String id() {
        return json.path("id").asText();
    }

    /** {@code io.orderflow.order.created}, {@code io.orderflow.order.ship}, {@code io.orderflow.refund.pending}... */
    public String type() {
        return json.path("type").asText();
    }

    /** The order's id. */
    public String subject() {
        return json.path("subject").asText();
    }

    public boolean isOrderEvent() {
        return type().startsWith(ORDER);
    }

    public boolean isRefundEvent() {
        return type().startsWith(REFUND);
    }

    public OrderCloudEvent orderEvent() {
        return as(ORDER, OrderCloudEvent.class);
    }

    public RefundCloudEvent refundEvent() {
        return as(REFUND, RefundCloudEvent.class);
    }

    /** The event as it came, for what the generated models leave out. */
    public JsonNode json() {
        return json;
    }

    private <T> T as(String prefix, Class<T> model) {
        if (!type().startsWith(prefix)) {
            throw new IllegalStateException(id() + " is " + type() + ", not " + prefix + "*");
        }
        try {
            return mapper.treeToValue(json, model);
        } catch (JsonProcessingException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public String toString() {
        return type() + " " + id() + " of " + subject();
    }
}
