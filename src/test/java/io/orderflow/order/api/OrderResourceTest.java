package io.orderflow.order.api;

import static io.orderflow.support.OrderMother.*;
import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.*;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.orderflow.idempotency.IdempotencyKeys;
import io.orderflow.support.Auth;
import io.orderflow.support.Callbacks;
import io.orderflow.support.CapturedLog;
import io.orderflow.support.Contract;
import io.orderflow.support.Management;
import io.orderflow.support.Sql;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.http.ContentType;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.logging.Level;
import java.util.logging.Logger;
import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.Test;

@QuarkusTest
class OrderResourceTest {

    private static final String PROBLEM = "application/problem+json";
    private static final String TYPES = "https://orderflow.dev/problems/";

    @Test
    void shouldCreateAnOrderWithLocationEtagAndTheSummedAmount() {
        String customer = "cust-" + UUID.randomUUID();
        String id = Auth.customer(customer).contentType(ContentType.JSON).header("Idempotency-Key", newKey())
                .body(orderBody(customer))
                .when().post("/orders")
                .then().statusCode(201)
                .header("ETag", "\"0\"")
                .body("status", is("CREATED"), "version", is(0), "amount", is((int) AMOUNT),
                        "customerId", is(customer), "currency", is("EUR"), "items", hasSize(2))
                .extract().path("id");
        assertEquals(7, UUID.fromString(id).version(), "ids are time-ordered UUIDv7");
        Auth.operator().get("/orders/" + id).then().statusCode(200).header("ETag", "\"0\"").body("id", is(id));
        assertEquals(1, Sql.count("select count(*) from orders where id = ?", UUID.fromString(id)));
    }

    @Test
    void shouldAnswerLocationPointingAtTheNewOrder() {
        var response = Auth.customer("c1").contentType(ContentType.JSON).header("Idempotency-Key", newKey())
                .body(orderBody("c1")).post("/orders");
        assertEquals("/orders/" + response.path("id"), response.header("Location"));
    }

    @Test
    void shouldWalkTheHappyPathAndRecordEveryTransitionInHistory() {
        String id = paidOrder();
        post(id, "ship", shipBody()).then().statusCode(200).body("status", is("SHIPPED"),
                "shipment.carrier", is("DHL"), "shipment.trackingNumber", is("JD0001"));
        post(id, "deliver", Map.of()).then().statusCode(200).body("status", is("DELIVERED"), "version", is(4));
        Auth.operator().get("/orders/" + id + "/transitions").then().statusCode(200)
                .body("event", contains("PAY", "PAYMENT_SUCCEEDED", "SHIP", "DELIVER"))
                .body("seq", contains(1, 2, 3, 4))
                .body("source", contains("api", "mockpay", "api", "api"))
                .body("to", contains("PAYMENT_PENDING", "PAID", "SHIPPED", "DELIVERED"));
    }

    @Test
    void shouldNameWhoMadeEachMoveInTheHistory() {
        String payer = newCustomer();
        String shipped = createOrder(payer);
        postKeyed(shipped, "pay", payBody(), newKey()).then().statusCode(200);
        Callbacks.deliver(Callbacks.success(shipped, AMOUNT, "EUR", "txn-" + UUID.randomUUID())).then().statusCode(200);
        Auth.operator("ops-alice").contentType(ContentType.JSON).body(shipBody()).post("/orders/" + shipped + "/ship")
                .then().statusCode(200);
        String canceller = newCustomer();
        String cancelled = createOrder(canceller);
        Auth.customer(canceller).contentType(ContentType.JSON).body(Map.of("reason", "changed my mind"))
                .post("/orders/" + cancelled + "/cancel").then().statusCode(200);
        String cancelledByOps = createOrder();
        Auth.operator("ops-bob").contentType(ContentType.JSON).body(Map.of()).post("/orders/" + cancelledByOps
                + "/cancel").then().statusCode(200);

        Auth.operator().get("/orders/" + shipped + "/transitions").then().statusCode(200)
                .body("event", contains("PAY", "PAYMENT_SUCCEEDED", "SHIP"))
                .body("source", contains("api", "mockpay", "api"))
                .body("actor", contains(payer, "mockpay", "ops-alice"));
        Auth.customer(canceller).get("/orders/" + cancelled + "/transitions").then().statusCode(200)
                .body("actor", contains(canceller));
        assertEquals("ops-bob", Sql.string("select actor from order_transitions where order_id = ?",
                UUID.fromString(cancelledByOps)));
    }

    @Test
    void shouldLogEachAppliedTransitionOnceWithItsActorAndAHashOfItsKeyButNeverTheKey() {
        String id = paidOrder();
        String key = "key-" + UUID.randomUUID();
        Logger transitions = Logger.getLogger("io.orderflow.transitions");
        Level was = transitions.getLevel();
        transitions.setLevel(Level.INFO);
        List<String> lines;
        try (CapturedLog log = CapturedLog.start()) {
            Auth.operator("ops-frank").contentType(ContentType.JSON).header("Idempotency-Key", key).body(shipBody())
                    .post("/orders/" + id + "/ship").then().statusCode(200);
            Auth.operator("ops-frank").contentType(ContentType.JSON).header("Idempotency-Key", key).body(shipBody())
                    .post("/orders/" + id + "/ship").then().statusCode(200).header("Idempotent-Replayed", "true");
            lines = log.atLeast(Level.INFO).stream().filter(line -> line.contains(id)).toList();
        } finally {
            transitions.setLevel(was);
        }
        assertEquals(1, lines.size(), "one line for the move, none for its replay: " + lines);
        String line = lines.get(0);
        assertTrue(line.startsWith("INFO [io.orderflow.transitions] order " + id + " SHIP applied: SHIPPED,"), line);
        assertTrue(line.contains("actor ops-frank"), line);
        assertTrue(line.contains("key sha256:" + IdempotencyKeys.fingerprint(key).substring(0, 16)), line);
        assertFalse(line.contains(key), "never the key itself: " + line);
        assertFalse(line.contains("JD0001"), "never the event's details: " + line);
    }

    @Test
    void shouldRefuseAnIllegalTransitionWithAllowedEventsAndChangeNothing() {
        String id = createOrder();
        post(id, "ship", shipBody()).then().statusCode(409).contentType(PROBLEM)
                .body("type", is(TYPES + "illegal-transition"), "status", is(409),
                        "currentStatus", is("CREATED"), "event", is("SHIP"),
                        "allowedEvents", containsInAnyOrder("PAY", "PAYMENT_SUCCEEDED", "CANCEL"));
        Auth.operator().get("/orders/" + id).then().body("status", is("CREATED"), "version", is(0));
        assertEquals(0, Sql.historyCount(id, "SHIP"));
    }

    @Test
    void shouldAnswerADuplicateShipAfterDeliveryAsReplayedSuccessWithoutWriting() {
        String id = paidOrder();
        post(id, "ship", shipBody()).then().statusCode(200);
        post(id, "deliver", Map.of()).then().statusCode(200);
        post(id, "ship", shipBody()).then().statusCode(200).header("Idempotent-Replayed", "true")
                .body("status", is("DELIVERED"), "version", is(4));
        assertEquals(1, Sql.historyCount(id, "SHIP"));
    }

    @Test
    void shouldRefuseShipWithAnotherTrackingNumberOnAShippedOrderEvenUnderANewKeyAndNameTheAppliedOne() {
        String id = paidOrder();
        post(id, "ship", shipBody()).then().statusCode(200);
        postKeyed(id, "ship", Map.of("carrier", "DHL", "trackingNumber", "JD9999"), newKey()).then()
                .statusCode(409).contentType(PROBLEM)
                .body("type", is(TYPES + "transition-conflict"), "event", is("SHIP"),
                        "applied.carrier", is("DHL"), "applied.trackingNumber", is("JD0001"));
        post(id, "ship", Map.of("carrier", "UPS", "trackingNumber", "JD0001")).then().statusCode(409)
                .body("type", is(TYPES + "transition-conflict"));
        Auth.operator().get("/orders/" + id).then().body("shipment.trackingNumber", is("JD0001"), "version", is(3));
        assertEquals(1, Sql.historyCount(id, "SHIP"));
        post(id, "ship", shipBody()).then().statusCode(200).header("Idempotent-Replayed", "true");
    }

    @Test
    void shouldCallACancelWithoutReasonADuplicateAndOneWithAnotherReasonAConflict() {
        String id = createOrder();
        post(id, "cancel", Map.of("reason", "changed my mind")).then().statusCode(200);
        post(id, "cancel", Map.of()).then().statusCode(200).header("Idempotent-Replayed", "true")
                .body("cancellation.reason", is("changed my mind"));
        post(id, "cancel", Map.of("reason", "changed my mind")).then().statusCode(200)
                .header("Idempotent-Replayed", "true");
        post(id, "cancel", Map.of("reason", "found it cheaper")).then().statusCode(409)
                .body("type", is(TYPES + "transition-conflict"), "applied.reason", is("changed my mind"));
        assertEquals(1, Sql.historyCount(id, "CANCEL"));
    }

    @Test
    void shouldRefuseALatePayAfterTheOrderWentAroundTheLoopAndWasCancelled() {
        String id = createOrder();
        postKeyed(id, "pay", payBody(), newKey()).then().statusCode(200);
        Callbacks.deliver(Callbacks.event(UUID.randomUUID().toString(),
                "PAYMENT_FAILED", id, AMOUNT, "EUR", "txn-f")).then().statusCode(200);
        post(id, "cancel", Map.of("reason", "gave up")).then().statusCode(200).body("status", is("CANCELLED"));
        postKeyed(id, "pay", payBody(), newKey()).then().statusCode(409)
                .body("type", is(TYPES + "illegal-transition"), "currentStatus", is("CANCELLED"));
    }

    @Test
    void shouldRefuseAStaleIfMatchWith412AndChangeNothing() {
        String id = paidOrder();
        post(id, "ship", shipBody()).then().statusCode(200);
        Auth.operator().contentType(ContentType.JSON).header("If-Match", "\"2\"").body(Map.of())
                .post("/orders/" + id + "/deliver")
                .then().statusCode(412).contentType(PROBLEM).body("type", is(TYPES + "version-mismatch"),
                        "currentVersion", is(3));
        Auth.operator().get("/orders/" + id).then().body("status", is("SHIPPED"));
        Auth.operator().contentType(ContentType.JSON).header("If-Match", "\"3\"").body(Map.of())
                .post("/orders/" + id + "/deliver").then().statusCode(200).header("ETag", "\"4\"");
    }

    @Test
    void shouldAnswer404ForUnknownAndMalformedOrderIds() {
        Auth.operator().get("/orders/" + UUID.randomUUID()).then().statusCode(404).contentType(PROBLEM)
                .body("type", is(TYPES + "not-found"));
        Auth.operator().filter(Contract.invalidRequest()).get("/orders/not-a-uuid").then().statusCode(404).contentType(PROBLEM);
        post(UUID.randomUUID().toString(), "ship", shipBody()).then().statusCode(404)
                .body("type", is(TYPES + "not-found"));
    }

    @Test
    void shouldRefuseBadOrdersWithProblemDetailsAndStoreNothing() {
        long before = Sql.count("select count(*) from orders");
        List<Object> bad = List.of(
                Map.of("customerId", "c", "items", List.of(Map.of("sku", "A", "quantity", 1, "unitPrice", 1))),
                Map.of("customerId", "c", "currency", "EUR", "items", List.of()),
                Map.of("customerId", "c", "currency", "EUR",
                        "items", List.of(Map.of("sku", "A", "quantity", 0, "unitPrice", 1))),
                Map.of("customerId", "c", "currency", "EUR",
                        "items", List.of(Map.of("sku", "A", "quantity", -2, "unitPrice", 1))),
                Map.of("customerId", "c", "currency", "EURO",
                        "items", List.of(Map.of("sku", "A", "quantity", 1, "unitPrice", 1))),
                Map.of("customerId", "c", "currency", "XYZ",
                        "items", List.of(Map.of("sku", "A", "quantity", 1, "unitPrice", 1))),
                Map.of("customerId", "c", "currency", "EUR",
                        "items", List.of(Map.of("sku", "A", "quantity", 1, "unitPrice", -1))),
                Map.of("customerId", "c", "currency", "EUR",
                        "items", List.of(Map.of("sku", "A", "quantity", 2, "unitPrice", Long.MAX_VALUE))),
                Map.of("customerId", "c", "currency", "EUR", "items", List.of(
                        Map.of("sku", "A", "quantity", 1, "unitPrice", Long.MAX_VALUE),
                        Map.of("sku", "B", "quantity", 1, "unitPrice", 1))),
                Map.of("customerId", "c", "currency", "EUR", "status", "PAID",
                        "items", List.of(Map.of("sku", "A", "quantity", 1, "unitPrice", 1))),
                Map.of("customerId", "c", "currency", "EUR", "amount", 1,
                        "items", List.of(Map.of("sku", "A", "quantity", 1, "unitPrice", 1))));
        for (Object body : bad) {
            Auth.customer("c").filter(Contract.invalidRequest()).contentType(ContentType.JSON)
                    .header("Idempotency-Key", newKey()).body(body).post("/orders")
                    .then().statusCode(400).contentType(PROBLEM).body("status", is(400),
                            "type", startsWith(TYPES), "detail", notNullValue());
        }
        assertEquals(before, Sql.count("select count(*) from orders"));
    }

    @Test
    void shouldRefuseMalformedJsonAndWrongContentTypeWithProblemDetails() {
        Auth.customer("c").filter(Contract.invalidRequest()).contentType(ContentType.JSON)
                .header("Idempotency-Key", newKey()).body("{\"customerId\": ")
                .post("/orders").then().statusCode(400).contentType(PROBLEM)
                .body("type", is(TYPES + "malformed-body"), "detail", not(containsString("Exception")));
        Auth.customer("c").filter(Contract.invalidRequest()).contentType(ContentType.TEXT)
                .header("Idempotency-Key", newKey()).body("hello")
                .post("/orders").then().statusCode(415).contentType(PROBLEM)
                .body("type", is(TYPES + "unsupported-media-type"));
        Auth.customer("c").filter(Contract.invalidRequest()).contentType(ContentType.JSON)
                .header("Idempotency-Key", newKey())
                .body("{\"customerId\":\"c\",\"currency\":\"EUR\",\"items\":[{\"sku\":\"A\",\"quantity\":\"many\"}]}")
                .post("/orders").then().statusCode(400).contentType(PROBLEM);
        Auth.customer("c").filter(Contract.invalidRequest()).contentType(ContentType.JSON)
                .header("Idempotency-Key", newKey())
                .body("{\"customerId\":\"c\",\"currency\":\"EUR\",\"items\":[{\"sku\":\"A\",\"quantity\":1,"
                        + "\"unitPrice\":99999999999999999999999}]}")
                .post("/orders").then().statusCode(400).contentType(PROBLEM);
    }

    @Test
    void shouldPageOrdersOfACustomerByKeyset() {
        String customer = "pager-" + UUID.randomUUID();
        List<String> ids = List.of(createOrder(customer), createOrder(customer), createOrder(customer));
        var first = Auth.customer(customer).queryParam("customerId", customer).queryParam("limit", 2).get("/orders")
                .then().statusCode(200).body("items", hasSize(2)).extract();
        assertEquals(ids.subList(0, 2), first.path("items.id"));
        String next = first.path("next");
        Auth.operator().queryParam("customerId", customer).queryParam("limit", 2).queryParam("after", next)
                .get("/orders")
                .then().statusCode(200).body("items.id", contains(ids.get(2))).body("next", nullValue());
        Auth.customer(customer).queryParam("status", "CREATED").get("/orders")
                .then().body("items", hasSize(3));
        Auth.operator().filter(Contract.invalidRequest()).queryParam("limit", 101).get("/orders").then().statusCode(400).contentType(PROBLEM);
        Auth.operator().filter(Contract.invalidRequest()).queryParam("status", "LOST").get("/orders").then().statusCode(400).contentType(PROBLEM);
        Auth.operator().filter(Contract.invalidRequest()).queryParam("after", "x").get("/orders").then().statusCode(400).contentType(PROBLEM);
    }

    @Test
    void shouldServeTheTransitionTableAsJsonAndMermaid() {
        Auth.operator().get("/state-machine").then().statusCode(200)
                .body("states", hasSize(8))
                .body("transitions.find { it.event == 'CANCEL' && it.to == 'REFUND_PENDING' }.from", contains("PAID"))
                .body("transitions.find { it.event == 'SHIP' }.from", contains("PAID"))
                .body("transitions.find { it.event == 'PAY' && it.when == 'PROVIDER_CHANGES' }.from",
                        contains("PAYMENT_PENDING"));
        String mermaid = Auth.operator().queryParam("format", "mermaid").get("/state-machine")
                .then().statusCode(200).contentType(ContentType.TEXT).extract().asString();
        Assertions.assertTrue(mermaid.startsWith("stateDiagram-v2"));
        Assertions.assertTrue(mermaid.contains("PAID --> SHIPPED: SHIP"));
    }

    @Test
    void shouldCountTransitionsByEventAndOutcomeInMetrics() {
        String id = createOrder();
        post(id, "deliver", Map.of()).then().statusCode(409);
        Management.given().get("/q/metrics").then().statusCode(200)
                .body(containsString("orderflow_transitions_total{event=\"DELIVER\",outcome=\"illegal\"}"));
    }

    @Test
    void shouldRefuseABodyOver64KilobytesWith413AndStoreNothing() {
        String customer = "big-" + UUID.randomUUID();
        String huge = "{\"customerId\":\"" + customer + "\",\"currency\":\"EUR\",\"items\":[{\"sku\":\""
                + "x".repeat(70_000) + "\",\"quantity\":1,\"unitPrice\":1}]}";
        Auth.customer(customer).filter(Contract.invalidRequest()).contentType(ContentType.JSON)
                .header("Idempotency-Key", newKey()).body(huge)
                .post("/orders").then().statusCode(413).contentType(PROBLEM)
                .body("type", is(TYPES + "payload-too-large"));
        assertEquals(0, Sql.count("select count(*) from orders where customer_id = ?", customer));
    }

    @Test
    void shouldBoundItemCountsAndStringLengths() {
        String customer = "bounds-" + UUID.randomUUID();
        List<Map<String, Object>> items = new ArrayList<>();
        for (int i = 0; i < 101; i++) {
            items.add(Map.of("sku", "S" + i, "quantity", 1, "unitPrice", 1));
        }
        Auth.customer(customer).filter(Contract.invalidRequest()).contentType(ContentType.JSON)
                .header("Idempotency-Key", newKey())
                .body(Map.of("customerId", customer, "currency", "EUR", "items", items))
                .post("/orders").then().statusCode(400).body("field", is("items"));
        Auth.customer(customer).filter(Contract.invalidRequest()).contentType(ContentType.JSON)
                .header("Idempotency-Key", newKey())
                .body(Map.of("customerId", customer, "currency", "EUR",
                        "items", List.of(Map.of("sku", "s".repeat(65), "quantity", 1, "unitPrice", 1))))
                .post("/orders").then().statusCode(400).body("field", is("items[].sku"));
        String id = paidOrder();
        Auth.operator().filter(Contract.invalidRequest()).contentType(ContentType.JSON)
                .body(Map.of("carrier", "c".repeat(129), "trackingNumber", "1")).post("/orders/" + id + "/ship")
                .then().statusCode(400);
        assertEquals(0, Sql.count("select count(*) from orders where customer_id = ?", customer));
    }
}
