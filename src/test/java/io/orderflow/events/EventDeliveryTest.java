package io.orderflow.events;

import static io.orderflow.support.OrderMother.*;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import com.networknt.schema.JsonSchema;
import com.networknt.schema.JsonSchemaFactory;
import com.networknt.schema.SpecVersion;
import io.orderflow.support.Auth;
import io.orderflow.support.Await;
import io.orderflow.support.Callbacks;
import io.orderflow.support.Management;
import io.orderflow.support.FeedEvents;
import io.orderflow.support.Sql;
import io.quarkus.redis.datasource.RedisDataSource;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * Both ways out, with the scheduled relay as deployed: a lifecycle's five events reach the Redis Stream and the feed
 * once each, in version order, matching asyncapi.yaml's schema; requests that change nothing send nothing.
 */
@QuarkusTest
class EventDeliveryTest {

    private static final List<String> LIFECYCLE = List.of("io.orderflow.order.created", "io.orderflow.order.pay",
            "io.orderflow.order.payment_succeeded", "io.orderflow.order.ship", "io.orderflow.order.deliver");

    @Inject
    RedisDataSource redis;

    @Test
    void shouldDeliverALifecyclesFiveEventsInVersionOrderToTheStreamAndTheFeedAndNothingForRepeats() {
        String start = FeedEvents.drain(null).next();
        String id = createOrder();
        String payKey = newKey();
        postKeyed(id, "pay", payBody(), payKey).then().statusCode(200);
        String success = Callbacks.success(id, AMOUNT, "EUR", "txn-" + UUID.randomUUID());
        Callbacks.deliver(success).then().statusCode(200);
        post(id, "ship", shipBody()).then().statusCode(200);
        post(id, "deliver", Map.of()).then().statusCode(200);
        // a replay, a redelivery, a duplicate and an illegal request: none of them changes the order
        postKeyed(id, "pay", payBody(), payKey).then().statusCode(200);
        Callbacks.deliver(success).then().statusCode(200);
        post(id, "deliver", Map.of()).then().statusCode(200);
        post(id, "cancel", Map.of("reason", "too late")).then().statusCode(409);
        FeedEvents.awaitStreamed(redis, id);

        List<JsonNode> streamed = FeedEvents.about(id, FeedEvents.stream(redis));
        List<JsonNode> fed = FeedEvents.about(id,
                FeedEvents.drain(start).events().stream().map(JsonNode::toString).toList());
        for (List<JsonNode> events : List.of(streamed, fed)) {
            assertEquals(LIFECYCLE, events.stream().map(e -> e.get("type").asText()).toList());
            assertEquals(List.of(0, 1, 2, 3, 4), events.stream().map(e -> e.get("data").get("version").asInt())
                    .toList());
            events.forEach(e -> assertEquals(e.get("id").asText(), FeedEvents.cloudEvent(e.toString()).getId()));
        }
        assertEquals(streamed, fed, "the same events both ways");
        JsonSchema schema = asyncApiSchema("OrderEvent");
        streamed.forEach(e -> assertEquals(Set.of(), schema.validate(e), "asyncapi.yaml's OrderEvent: " + e));
    }

    @Test
    void shouldExposeTheEventSeriesFromStartup() {
        String metrics = Management.metrics();
        for (String series : List.of("orderflow_events_feed_lag_seconds ", "orderflow_events_stream_lag_seconds ",
                "orderflow_events_published_total{way=\"redis-stream\"}",
                "orderflow_events_published_total{way=\"feed\"}", "orderflow_events_relay_failures_total ",
                "orderflow_events_sequencer_failures_total ", "orderflow_events_stream_rewinds_total ",
                "orderflow_events_expired_total{consumer=\"redis-stream\"}",
                "orderflow_events_expired_total{consumer=\"webhooks\"}")) {
            assertTrue(metrics.contains(series), series + " in\n" + metrics);
        }
    }

    /** asyncapi.yaml's schema {@code name} (OrderEvent, RefundEvent), with its references resolved inside it. */
    static JsonSchema asyncApiSchema(String name) {
        try {
            JsonNode document = new YAMLMapper().readTree(Path.of("asyncapi.yaml").toFile());
            JsonNode schemas = document.get("components").get("schemas");
            String text = schemas.get(name).toString()
                    .replace("\"$ref\":\"#/components/schemas/", "\"$ref\":\"#/$defs/");
            JsonNode root = new YAMLMapper().readTree(text);
            ((ObjectNode) root).set("$defs", new YAMLMapper().readTree(
                    schemas.toString().replace("\"$ref\":\"#/components/schemas/", "\"$ref\":\"#/$defs/")));
            return JsonSchemaFactory.getInstance(SpecVersion.VersionFlag.V7).getSchema(root);
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }
}
