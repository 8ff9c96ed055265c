package io.orderflow.support;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.cloudevents.CloudEvent;
import io.cloudevents.core.provider.EventFormatProvider;
import io.cloudevents.jackson.JsonFormat;
import io.quarkus.redis.datasource.RedisDataSource;
import io.quarkus.redis.datasource.stream.StreamRange;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The events as the tests read them: an order's ({@code GET /orders/{id}/events}), the Redis Stream's and the feed's;
 * parsed by the CloudEvents SDK.
 */
public final class FeedEvents {

    /** The stream the service appends to (its default name; the tests do not change it). */
    public static final String STREAM = "orderflow.order-events";

    private static final ObjectMapper JSON = new ObjectMapper();

    private FeedEvents() {
    }

    /** The events of order {@code orderId}, in the order's own order (whether or not the feed has them yet). */
    public static List<String> of(String orderId) {
        String page = Auth.operator().get("/orders/" + orderId + "/events").then().statusCode(200).extract().asString();
        List<String> events = new ArrayList<>();
        tree(page).get("events").forEach(event -> events.add(event.toString()));
        return events;
    }

    /**
     * {@code json} read as a structured-mode CloudEvent by the SDK's JSON format, which refuses an envelope without
     * the required attributes or with an unknown spec version.
     */
    public static CloudEvent cloudEvent(String json) {
        return EventFormatProvider.getInstance().resolveFormat(JsonFormat.CONTENT_TYPE)
                .deserialize(json.getBytes(StandardCharsets.UTF_8));
    }

    /** Waits until the stream holds every event of order {@code orderId} (the relay follows the feed). */
    public static void awaitStreamed(RedisDataSource redis, String orderId) {
        int events = of(orderId).size();
        Await.until(() -> about(orderId, stream(redis)).stream().map(e -> e.get("id").asText()).distinct().count()
                >= events, "the relay to append order " + orderId + "'s " + events + " events to the stream");
    }

    /** The {@code event} field of every entry of the service's stream, oldest first. */
    public static List<String> stream(RedisDataSource redis) {
        return redis.stream(String.class, String.class, String.class).xrange(STREAM, StreamRange.of("-", "+"))
                .stream().map(entry -> {
                    assertEquals(Set.of("event", "position"), entry.payload().keySet(), "two fields per entry");
                    return entry.payload().get("event");
                }).toList();
    }

    /** The events of {@code stream} (or a feed's) whose subject is {@code orderId}, in their order there. */
    public static List<JsonNode> about(String orderId, List<String> events) {
        return events.stream().map(FeedEvents::tree).filter(e -> orderId.equals(e.path("subject").asText()))
                .toList();
    }

    /** {@code GET /events?after=...} as an operator: the page. */
    public static JsonNode feed(String after, int limit) {
        return tree(Auth.operator().queryParam("limit", limit).queryParams(after == null ? Map.of()
                : Map.of("after", after)).get("/events").then().statusCode(200).extract().asString());
    }

    /** Follows the feed from {@code after} until an empty page: every event served, and the cursor to poll with. */
    public static Page drain(String after) {
        List<JsonNode> events = new ArrayList<>();
        String cursor = after;
        while (true) {
            JsonNode page = feed(cursor, 500);
            cursor = page.get("next").asText();
            if (page.get("events").isEmpty()) {
                return new Page(events, cursor);
            }
            page.get("events").forEach(events::add);
        }
    }

    /** What a reader collected from the feed and where it stands. */
    public record Page(List<JsonNode> events, String next) {
    }

    public static JsonNode tree(String json) {
        try {
            return JSON.readTree(json);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
