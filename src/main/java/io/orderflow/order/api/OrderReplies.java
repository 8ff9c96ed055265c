package io.orderflow.order.api;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.orderflow.common.Reply;
import io.orderflow.order.domain.Order;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.ws.rs.core.MediaType;
import java.io.UncheckedIOException;
import java.util.Map;

/** Renders orders into replies: the exact bytes, Location and ETag a client gets and a repeat gets again. */
@ApplicationScoped
public class OrderReplies {

    private final ObjectMapper json;

    public OrderReplies(ObjectMapper json) {
        this.json = json;
    }

    public Reply created(Order order) {
        return new Reply(201, MediaType.APPLICATION_JSON,
                Map.of("Location", "/orders/" + order.id(), "ETag", etag(order)), body(order));
    }

    public Reply ok(Order order) {
        return new Reply(200, MediaType.APPLICATION_JSON, Map.of("ETag", etag(order)), body(order));
    }

    /**
     * The order and, next to its own members, {@code additions} (PAY's {@code payment}: what the shop's front end
     * needs to let the shopper pay). A repeat of the request is rendered by {@link #ok(Order)}, without them.
     */
    public Reply ok(Order order, Map<String, Object> additions) {
        if (additions.isEmpty()) {
            return ok(order);
        }
        ObjectNode body = json.valueToTree(OrderView.of(order));
        additions.forEach((name, value) -> {
            // PAY's payment block completes the order's own payment member rather than replacing it
            JsonNode added = json.valueToTree(value);
            if (body.get(name) instanceof ObjectNode existing && added instanceof ObjectNode fields) {
                existing.setAll(fields);
            } else {
                body.set(name, added);
            }
        });
        try {
            return new Reply(200, MediaType.APPLICATION_JSON, Map.of("ETag", etag(order), "Cache-Control", "no-store"),
                    json.writeValueAsBytes(body));
        } catch (JsonProcessingException e) {
            throw new UncheckedIOException(e);
        }
    }

    public static String etag(Order order) {
        return "\"" + order.version() + "\"";
    }

    public byte[] canonical(Object request) {
        try {
            return json.writeValueAsBytes(request);
        } catch (JsonProcessingException e) {
            throw new UncheckedIOException(e);
        }
    }

    private byte[] body(Order order) {
        try {
            return json.writeValueAsBytes(OrderView.of(order));
        } catch (JsonProcessingException e) {
            throw new UncheckedIOException(e);
        }
    }
}
