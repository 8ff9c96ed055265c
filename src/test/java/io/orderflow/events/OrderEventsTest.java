package io.orderflow.events;

import static io.orderflow.support.OrderMother.*;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import com.fasterxml.jackson.databind.JsonNode;
import io.cloudevents.CloudEvent;
import io.cloudevents.SpecVersion;
import io.orderflow.support.Auth;
import io.orderflow.support.Callbacks;
import io.orderflow.support.FeedEvents;
import io.orderflow.support.Sql;
import io.quarkus.test.junit.QuarkusTest;
import java.net.URI;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * The outbox rows the changes of an order write in their own statements: one CloudEvent per applied change, whose
 * {@code data.order} is the order exactly as {@code GET /orders/{id}} shows it right after; nothing for a request
 * that changes nothing.
 */
@QuarkusTest
class OrderEventsTest {

    @Test
    void shouldWriteOneEventPerChangeOfALifecycleWithTheOrderAsGetShowsIt() {
        String customer = newCustomer();
        String id = createAs(customer, newKey(), orderBody(customer)).then().statusCode(201).extract().path("id");
        List<JsonNode> shown = new ArrayList<>(List.of(shown(id)));
        Auth.customer(customer).contentType("application/json").header("Idempotency-Key", newKey()).body(payBody())
                .post("/orders/" + id + "/pay").then().statusCode(200);
        shown.add(shown(id));
        Callbacks.deliver(Callbacks.success(id, AMOUNT, "EUR", "txn-" + UUID.randomUUID())).then().statusCode(200);
        shown.add(shown(id));
        post(id, "ship", shipBody()).then().statusCode(200);
        shown.add(shown(id));
        post(id, "deliver", Map.of()).then().statusCode(200);
        shown.add(shown(id));

        List<String> events = FeedEvents.of(id);
        List<String> types = List.of("created", "pay", "payment_succeeded", "ship", "deliver");
        List<String> froms = new ArrayList<>(Arrays.asList(null, "CREATED", "PAYMENT_PENDING", "PAID",
                "SHIPPED"));
        assertEquals(5, events.size(), events.toString());
        for (int i = 0; i < 5; i++) {
            CloudEvent event = FeedEvents.cloudEvent(events.get(i));
            assertEquals(SpecVersion.V1, event.getSpecVersion());
            assertEquals("io.orderflow.order." + types.get(i), event.getType());
            assertEquals(URI.create("/orderflow"), event.getSource());
            assertEquals(id, event.getSubject());
            assertEquals("application/json", event.getDataContentType());
            JsonNode data = FeedEvents.tree(events.get(i)).get("data");
            assertEquals(i, data.get("version").asInt());
            assertEquals(i == 0 ? "CREATE" : types.get(i).toUpperCase(), data.get("event").asText());
            assertEquals(froms.get(i), data.get("from").isNull() ? null : data.get("from").asText());
            assertEquals(shown.get(i).get("status").asText(), data.get("to").asText());
            assertEquals(i == 2 ? "mockpay" : "api", data.get("source").asText());
            assertEquals(shown.get(i), data.get("order"), "the event's order is GET's, right after change " + i);
            assertEquals(shown.get(i).get("updatedAt").asText(), FeedEvents.tree(events.get(i)).get("time").asText());
        }
    }

    @Test
    void shouldShowACancelledOrderInItsEventAsGetShowsIt() {
        String id = createOrder();
        post(id, "cancel", Map.of("reason", "changed my mind")).then().statusCode(200);
        List<String> events = FeedEvents.of(id);
        assertEquals(2, events.size());
        JsonNode data = FeedEvents.tree(events.get(1)).get("data");
        assertEquals("io.orderflow.order.cancel", FeedEvents.cloudEvent(events.get(1)).getType());
        assertEquals(shown(id), data.get("order"));
        assertEquals("changed my mind", data.get("order").get("cancellation").get("reason").asText());
    }

    @Test
    void shouldWriteNoEventForADuplicateAReplayAnIllegalOrARefusedRequest() {
        String id = createOrder();
        String payKey = newKey();
        postKeyed(id, "pay", payBody(), payKey).then().statusCode(200);
        postKeyed(id, "pay", payBody(), payKey).then().statusCode(200).header("Idempotent-Replayed", "true");
        String success = Callbacks.success(id, AMOUNT, "EUR", "txn-" + UUID.randomUUID());
        Callbacks.deliver(success).then().statusCode(200);
        Callbacks.deliver(success).then().statusCode(200);
        Callbacks.deliver(Callbacks.success(id, AMOUNT + 1, "EUR", "txn-" + UUID.randomUUID()));
        post(id, "deliver", Map.of()).then().statusCode(409);
        Auth.operator().contentType("application/json").header("If-Match", "\"1\"").body(shipBody())
                .post("/orders/" + id + "/ship").then().statusCode(412);
        assertEquals(3, FeedEvents.of(id).size(), "created, pay and payment_succeeded only");

        String shipKey = newKey();
        postKeyed(id, "ship", shipBody(), shipKey).then().statusCode(200);
        postKeyed(id, "ship", shipBody(), shipKey).then().statusCode(200).header("Idempotent-Replayed", "true");
        post(id, "ship", shipBody()).then().statusCode(200).header("Idempotent-Replayed", "true");
        List<String> events = FeedEvents.of(id);
        assertEquals(4, events.size());
        assertEquals("io.orderflow.order.ship", FeedEvents.cloudEvent(events.get(3)).getType());
        assertNull(FeedEvents.tree(events.get(0)).get("data").get("from").textValue());
    }

    private static JsonNode shown(String id) {
        return FeedEvents.tree(get("/orders/" + id).then().statusCode(200).extract().asString());
    }
}
