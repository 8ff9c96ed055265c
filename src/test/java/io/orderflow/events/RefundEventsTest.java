package io.orderflow.events;

import static io.orderflow.support.OrderMother.*;
import static org.hamcrest.Matchers.is;
import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.JsonNode;
import com.networknt.schema.JsonSchema;
import io.cloudevents.CloudEvent;
import io.orderflow.support.Auth;
import io.orderflow.support.Await;
import io.orderflow.support.Callbacks;
import io.orderflow.support.FeedEvents;
import io.orderflow.support.Sql;
import io.quarkus.redis.datasource.RedisDataSource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.http.ContentType;
import io.restassured.response.Response;
import jakarta.inject.Inject;
import java.net.URI;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * A refund's status changes as CloudEvents in the outbox, written by the statements that change the refund: one per
 * change, whose {@code data.refund} is the refund as {@code GET /orders/{id}/refunds/{refundId}} shows it right
 * after; nothing for a refund that does not fit or a settle repeated; a refund that completes the order's refunds
 * comes before the order's own event, in the outbox and in the stream.
 */
@QuarkusTest
class RefundEventsTest {

    @Inject
    RedisDataSource redis;

    @Test
    void shouldWriteOneEventPerRefundStatusChangeWithTheRefundAsGetShowsIt() {
        String txn = "txn-" + UUID.randomUUID();
        String id = paidWithMockpay(txn);

        String failing = issue(id, 1000).then().statusCode(202).extract().path("id");
        Expected issued = expected(id, failing, "pending");
        assertRefundEvents(id, List.of(issued));
        issue(id, AMOUNT).then().statusCode(409); // does not fit beside the pending 1000
        assertEquals(1, refundEvents(id).size(), "a refund that does not fit makes no event");

        Callbacks.deliver(Callbacks.refund("REFUND_FAILED", id, 1000, txn, failing)).then().statusCode(200);
        Expected failed = expected(id, failing, "failed");
        Callbacks.deliver(Callbacks.refund("REFUND_FAILED", id, 1000, txn, failing)).then().statusCode(200);
        Callbacks.deliver(Callbacks.refund("REFUND_SUCCEEDED", id, 1000, txn, failing)).then().statusCode(200);
        assertRefundEvents(id, List.of(issued, failed));

        String whole = issue(id, AMOUNT).then().statusCode(202).extract().path("id");
        Expected pending = expected(id, whole, "pending");
        Callbacks.deliver(Callbacks.refund("REFUND_SUCCEEDED", id, AMOUNT, txn, whole)).then().statusCode(200);
        Expected succeeded = expected(id, whole, "succeeded");
        Callbacks.deliver(Callbacks.refund("REFUND_SUCCEEDED", id, AMOUNT, txn, whole)).then().statusCode(200);
        assertRefundEvents(id, List.of(issued, failed, pending, succeeded));
    }

    @Test
    void shouldWriteThePendingEventOfTheRefundACancelOfAPaidOrderOwes() {
        String id = paidWithMockpay("txn-" + UUID.randomUUID());
        post(id, "cancel", Map.of("reason", "changed my mind")).then().statusCode(200)
                .body("status", is("REFUND_PENDING"));
        String owed = Auth.operator().get("/orders/" + id + "/refunds").then().statusCode(200).extract()
                .path("items[0].id");
        assertRefundEvents(id, List.of(expected(id, owed, "pending")));
        List<String> types = FeedEvents.of(id).stream().map(event -> FeedEvents.tree(event).get("type").asText())
                .toList();
        assertEquals(List.of("io.orderflow.refund.pending", "io.orderflow.order.cancel"),
                types.subList(types.size() - 2, types.size()), "the refund's event before its order's: " + types);
    }

    @Test
    void shouldWriteTheSucceededEventOfAPendingRefundSettledByAReportOfTheWholeCaptureRefunded() {
        String txn = "txn-" + UUID.randomUUID();
        String id = paidWithMockpay(txn);
        post(id, "cancel", Map.of("reason", "changed my mind")).then().statusCode(200)
                .body("status", is("REFUND_PENDING"));
        String owed = Auth.operator().get("/orders/" + id + "/refunds").then().statusCode(200).extract()
                .path("items[0].id");
        Expected pending = expected(id, owed, "pending");

        // a report of the whole capture refunded that names no refund of ours (as Stripe's charge.refunded)
        String report = Callbacks.event("evt-" + UUID.randomUUID(), "REFUND_SUCCEEDED", id, AMOUNT, "EUR", txn);
        Callbacks.deliver(report).then().statusCode(200);
        Auth.operator().get("/orders/" + id).then().statusCode(200).body("status", is("REFUNDED"));
        Callbacks.deliver(report).then().statusCode(200);
        assertRefundEvents(id, List.of(pending, expected(id, owed, "succeeded")));
        List<String> types = FeedEvents.of(id).stream().map(event -> FeedEvents.tree(event).get("type").asText())
                .toList();
        assertEquals(List.of("io.orderflow.refund.succeeded", "io.orderflow.order.refund_succeeded"),
                types.subList(types.size() - 2, types.size()), "the refund's event before its order's: " + types);
    }

    @Test
    void shouldPublishAFullRefundsSucceededEventBeforeTheOrdersRefundCompletedToTheStreamAndTheFeed() {
        String start = FeedEvents.drain(null).next();
        String txn = "txn-" + UUID.randomUUID();
        String id = paidWithMockpay(txn);
        String whole = issue(id, AMOUNT).then().statusCode(202).extract().path("id");
        Callbacks.deliver(Callbacks.refund("REFUND_SUCCEEDED", id, AMOUNT, txn, whole)).then().statusCode(200);
        Auth.operator().get("/orders/" + id).then().statusCode(200).body("status", is("REFUNDED"));

        List<String> written = List.of("io.orderflow.order.created", "io.orderflow.order.pay",
                "io.orderflow.order.payment_succeeded", "io.orderflow.refund.pending",
                "io.orderflow.refund.succeeded", "io.orderflow.order.refund_completed");
        assertEquals(written, FeedEvents.of(id).stream()
                .map(event -> FeedEvents.tree(event).get("type").asText()).toList(), "the order's events, in its order");
        FeedEvents.awaitStreamed(redis, id);
        List<JsonNode> streamed = FeedEvents.about(id, FeedEvents.stream(redis));
        assertEquals(written, streamed.stream().map(event -> event.get("type").asText()).toList(), "the stream");
        // the feed's page is checked against openapi.yaml's EventPage by the contract filter
        assertEquals(streamed, FeedEvents.about(id, FeedEvents.drain(start).events().stream()
                .map(JsonNode::toString).toList()), "the feed serves the same events in the same order");
        JsonSchema schema = EventDeliveryTest.asyncApiSchema("RefundEvent");
        streamed.stream().filter(event -> event.get("type").asText().startsWith("io.orderflow.refund."))
                .forEach(event -> assertEquals(Set.of(), schema.validate(event), "asyncapi.yaml's RefundEvent"));
    }

    /**
     * A part of the capture given back changes the order as GET shows it (its refunded amount), so its version and
     * ETag move; the next transition's event shows the order with it, and the versions stay accounted for.
     */
    @Test
    void shouldRaiseTheOrdersVersionAndETagWhenARefundAddsToItsRefundedAmount() {
        String txn = "txn-" + UUID.randomUUID();
        String id = paidWithMockpay(txn);
        var before = Auth.operator().get("/orders/" + id).then().statusCode(200).extract();
        String part = issue(id, 1000).then().statusCode(202).extract().path("id");
        Callbacks.deliver(Callbacks.refund("REFUND_SUCCEEDED", id, 1000, txn, part)).then().statusCode(200);
        var after = Auth.operator().get("/orders/" + id).then().statusCode(200).body("refundedAmount", is(1000))
                .extract();
        assertEquals(before.jsonPath().getLong("version") + 1, after.jsonPath().getLong("version"));
        assertEquals("\"" + after.jsonPath().getLong("version") + "\"", after.header("ETag"));
        post(id, "ship", shipBody()).then().statusCode(200);
        JsonNode shipped = FeedEvents.tree(FeedEvents.of(id).stream()
                .filter(event -> event.contains("io.orderflow.order.ship")).findFirst().orElseThrow());
        assertEquals(after.jsonPath().getLong("version") + 1, shipped.get("data").get("version").asLong());
        assertEquals(1000, shipped.get("data").get("order").get("refundedAmount").asLong());
        assertEquals(List.of(), Sql.violations(List.of(id)));
    }

    /** What a refund's event should say: its type and GET's body right after the change. */
    private record Expected(String type, JsonNode shown) {
    }

    private static Expected expected(String orderId, String refundId, String status) {
        return new Expected("io.orderflow.refund." + status, FeedEvents.tree(
                Auth.operator().get("/orders/" + orderId + "/refunds/" + refundId).then().statusCode(200).extract()
                        .asString()));
    }

    /** The order's refund events are exactly {@code made}, in order, each with the refund as GET showed it. */
    private static void assertRefundEvents(String orderId, List<Expected> made) {
        List<String> events = refundEvents(orderId);
        assertEquals(made.size(), events.size(), events.toString());
        for (int i = 0; i < made.size(); i++) {
            CloudEvent event = FeedEvents.cloudEvent(events.get(i));
            JsonNode refund = made.get(i).shown();
            assertEquals(made.get(i).type(), event.getType());
            assertEquals(URI.create("/orderflow"), event.getSource());
            assertEquals(orderId, event.getSubject());
            JsonNode tree = FeedEvents.tree(events.get(i));
            JsonNode data = tree.get("data");
            assertEquals(refund, data.get("refund"), "the event's refund is GET's, right after the change");
            assertEquals(Map.of("orderId", orderId, "refundId", refund.get("id").asText(), "amount",
                    refund.get("amount").asText(), "currency", "EUR", "status", refund.get("status").asText()),
                    Map.of("orderId", data.get("orderId").asText(), "refundId", data.get("refundId").asText(),
                            "amount", data.get("amount").asText(), "currency", data.get("currency").asText(),
                            "status", data.get("status").asText()));
            assertEquals(refund.get("updatedAt"), tree.get("time"));
        }
    }

    private static List<String> refundEvents(String orderId) {
        return FeedEvents.of(orderId).stream()
                .filter(event -> FeedEvents.tree(event).get("type").asText().startsWith("io.orderflow.refund."))
                .toList();
    }

    private static String paidWithMockpay(String txn) {
        String id = createOrder();
        postKeyed(id, "pay", payBody(), newKey()).then().statusCode(200);
        Callbacks.deliver(Callbacks.success(id, AMOUNT, "EUR", txn)).then().statusCode(200);
        return id;
    }

    private static Response issue(String orderId, long amount) {
        return Auth.operator().contentType(ContentType.JSON).header("Idempotency-Key", newKey())
                .body(Map.of("amount", amount, "reason", "returned item")).post("/orders/" + orderId + "/refunds");
    }
}
