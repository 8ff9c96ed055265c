package io.orderflow.support;

import static io.restassured.RestAssured.given;

import io.restassured.http.ContentType;
import io.restassured.response.Response;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/** Builds orders and drives them through the API for tests: one place for request shapes, not copy-pasted JSON. */
public final class OrderMother {

    private OrderMother() {
    }

    public static Map<String, Object> orderBody(String customerId) {
        return Map.of("customerId", customerId, "currency", "EUR",
                "items", List.of(Map.of("sku", "SKU-1", "quantity", 2, "unitPrice", 1250),
                        Map.of("sku", "SKU-2", "quantity", 1, "unitPrice", 500)));
    }

    /** Expected amount of {@link #orderBody}. */
    public static final long AMOUNT = 3000;

    public static String newKey() {
        return UUID.randomUUID().toString();
    }

    public static String createOrder() {
        return createOrder("cust-" + UUID.randomUUID());
    }

    public static String createOrder(String customerId) {
        return given().contentType(ContentType.JSON).header("Idempotency-Key", newKey())
                .body(orderBody(customerId))
                .when().post("/orders")
                .then().statusCode(201).extract().path("id");
    }

    public static Response post(String orderId, String action, Object body) {
        return given().contentType(ContentType.JSON).body(body).when().post("/orders/" + orderId + "/" + action);
    }

    public static Response postKeyed(String orderId, String action, Object body, String key) {
        return given().contentType(ContentType.JSON).header("Idempotency-Key", key).body(body)
                .when().post("/orders/" + orderId + "/" + action);
    }

    public static Map<String, Object> shipBody() {
        return Map.of("carrier", "DHL", "trackingNumber", "JD0001");
    }

    public static Map<String, Object> payBody() {
        return Map.of("provider", "mockpay");
    }

    /** Moves a new order to PAID through the API (PAY, then the provider's success, applied through the same path). */
    public static String paidOrder() {
        String id = createOrder();
        postKeyed(id, "pay", payBody(), newKey()).then().statusCode(200);
        Callbacks.deliver(Callbacks.success(id, AMOUNT, "EUR", "txn-" + UUID.randomUUID()))
                .then().statusCode(200);
        return id;
    }
}
