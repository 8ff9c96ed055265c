package io.orderflow.support;

import io.restassured.http.ContentType;
import io.restassured.response.Response;
import io.restassured.specification.RequestSpecification;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Builds orders and drives them through the API for tests: one place for request shapes, not copy-pasted JSON.
 * Each call carries the token of whoever may make it: the owning customer creates, pays and reads; the operator
 * ships, delivers and cancels.
 */
public final class OrderMother {

    /** Expected amount of {@link #orderBody}. */
    public static final long AMOUNT = 3000;

    private static final Map<String, String> OWNERS = new ConcurrentHashMap<>();

    private OrderMother() {
    }

    public static Map<String, Object> orderBody(String customerId) {
        return Map.of("customerId", customerId, "currency", "EUR",
                "items", List.of(Map.of("sku", "SKU-1", "quantity", 2, "unitPrice", 1250),
                        Map.of("sku", "SKU-2", "quantity", 1, "unitPrice", 500)));
    }

    public static String newKey() {
        return UUID.randomUUID().toString();
    }

    public static String newCustomer() {
        return "cust-" + UUID.randomUUID();
    }

    /** The customer who created {@code orderId} through this class. */
    public static String ownerOf(String orderId) {
        return OWNERS.get(orderId);
    }

    /** {@code POST /orders} as {@code customerId}, with a fresh key. */
    public static Response createAs(String customerId, String key, Object body) {
        return Auth.customer(customerId).contentType(ContentType.JSON).header("Idempotency-Key", key).body(body)
                .when().post("/orders");
    }

    public static String createOrder() {
        return createOrder(newCustomer());
    }

    public static String createOrder(String customerId) {
        String id = createAs(customerId, newKey(), orderBody(customerId)).then().statusCode(201).extract().path("id");
        OWNERS.put(id, customerId);
        return id;
    }

    /** The caller each action is made as: pay by the owner, the rest by an operator. */
    public static RequestSpecification callerFor(String orderId, String action) {
        String owner = OWNERS.get(orderId);
        return action.equals("pay") && owner != null ? Auth.customer(owner) : Auth.operator();
    }

    public static Response post(String orderId, String action, Object body) {
        return callerFor(orderId, action).contentType(ContentType.JSON).body(body)
                .when().post("/orders/" + orderId + "/" + action);
    }

    public static Response postKeyed(String orderId, String action, Object body, String key) {
        return callerFor(orderId, action).contentType(ContentType.JSON).header("Idempotency-Key", key).body(body)
                .when().post("/orders/" + orderId + "/" + action);
    }

    public static Response get(String path) {
        return Auth.operator().get(path);
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
        Callbacks.deliver(Callbacks.success(id, AMOUNT, "EUR", "txn-" + UUID.randomUUID())).then().statusCode(200);
        return id;
    }
}
