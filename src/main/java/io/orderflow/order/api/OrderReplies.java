package io.orderflow.order.api;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
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
