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

/**
 * The events as the tests read them: from the outbox table, the Redis Stream and the feed; parsed by the CloudEvents
 * SDK.
 */
public final class OutboxEvents {

    /** The stream the service appends to (its default name; the tests do not change it). */
    public static final String STREAM = "orderflow.order-events";

    private static final ObjectMapper JSON = new ObjectMapper();

    private OutboxEvents() {
    }

    /** The payloads of the events of {@code aggregateId} (an order id), in the order they were written. */
    public static List<String> of(String aggregateId) {
        return Sql.strings("select payload::text from outbox where aggregateid = ? order by seq", aggregateId);
    }

    /**
     * {@code json} read as a structured-mode CloudEvent by the SDK's JSON format, which refuses an envelope without
     * the required attributes or with an unknown spec version.
     */
    public static CloudEvent cloudEvent(String json) {
        return EventFormatProvider.getInstance().resolveFormat(JsonFormat.CONTENT_TYPE)
                .deserialize(json.getBytes(StandardCharsets.UTF_8));
    }

    /** The {@code event} field of every entry of the service's stream, oldest first. */
    public static List<String> stream(RedisDataSource redis) {
        return redis.stream(String.class, String.class, String.class).xrange(STREAM, StreamRange.of("-", "+"))
                .stream().map(entry -> {
                    assertEquals(List.of("event"), List.copyOf(entry.payload().keySet()), "one field per entry");
                    return entry.payload().get("event");
                }).toList();
    }

    /** The events of {@code stream} (or a feed's) whose subject is {@code orderId}, in their order there. */
    public static List<JsonNode> about(String orderId, List<String> events) {
        return events.stream().map(OutboxEvents::tree).filter(e -> orderId.equals(e.path("subject").asText()))
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
