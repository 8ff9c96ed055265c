package io.orderflow.security;

import static io.orderflow.support.OrderMother.*;
import static io.restassured.RestAssured.given;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.orderflow.support.Auth;
import io.orderflow.support.Callbacks;
import io.orderflow.support.Contract;
import io.orderflow.support.Sql;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.http.ContentType;
import io.restassured.response.Response;
import io.restassured.specification.RequestSpecification;
import java.time.Instant;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Role × endpoint × own/other order: every cell has its expected status, and refused calls change nothing. */
@QuarkusTest
class AuthorizationMatrixTest {

    private static RequestSpecification as(String who, String owner) {
        return switch (who) {
            case "none" -> given().filter(Contract.invalidRequest());
            case "forged" -> Auth.bearer(forged(Auth.token("operator", "ops-1")));
            case "expired" -> Auth.bearer(Auth.token("operator", "ops-1", Instant.now().minusSeconds(600)));
            case "owner" -> Auth.customer(owner);
            case "other" -> Auth.customer("someone-else-" + UUID.randomUUID());
            case "operator" -> Auth.operator();
            default -> throw new IllegalArgumentException(who);
        };
    }

    /** The token with one character in the middle of its signature changed (the last one may carry no bits). */
    private static String forged(String token) {
        int i = token.lastIndexOf('.') + 20;
        char c = token.charAt(i) == 'A' ? 'B' : 'A';
        return token.substring(0, i) + c + token.substring(i + 1);
    }

    private static Response call(String endpoint, RequestSpecification spec, String owner, String orderId) {
        RequestSpecification json = spec.contentType(ContentType.JSON).header("Idempotency-Key", newKey());
        return switch (endpoint) {
            case "create" -> json.body(orderBody(owner)).post("/orders");
            case "get" -> spec.get("/orders/" + orderId);
            case "list-own" -> spec.queryParam("customerId", owner).get("/orders");
            case "transitions" -> spec.get("/orders/" + orderId + "/transitions");
            case "pay" -> json.body(payBody()).post("/orders/" + orderId + "/pay");
            case "ship" -> json.body(shipBody()).post("/orders/" + orderId + "/ship");
            case "deliver" -> json.body(Map.of()).post("/orders/" + orderId + "/deliver");
            case "cancel" -> json.body(Map.of("reason", "matrix")).post("/orders/" + orderId + "/cancel");
            case "anomalies" -> spec.get("/payments/anomalies");
            case "stuck" -> spec.get("/ops/payments-stuck");
            case "events" -> spec.queryParam("limit", 1).get("/events");
            case "webhooks" -> spec.get("/webhook-endpoints");
            case "webhook-register" -> json.body(Map.of("url", "http://127.0.0.1:9/matrix")).post("/webhook-endpoints");
            case "tokens" -> spec.post("/idempotency-tokens");
            case "state-machine" -> spec.get("/state-machine");
            default -> throw new IllegalArgumentException(endpoint);
        };
    }

    @ParameterizedTest(name = "{0} as {1} → {2}")
    @CsvSource({
            "create, none, 401", "create, forged, 401", "create, expired, 401",
            "create, owner, 201", "create, other, 403", "create, operator, 403",
            "get, none, 401", "get, forged, 401", "get, expired, 401",
            "get, owner, 200", "get, other, 404", "get, operator, 200",
            "list-own, none, 401", "list-own, owner, 200", "list-own, other, 403", "list-own, operator, 200",
            "transitions, none, 401", "transitions, owner, 200", "transitions, other, 404",
            "transitions, operator, 200",
            "pay, none, 401", "pay, expired, 401", "pay, owner, 200", "pay, other, 404", "pay, operator, 403",
            "ship, none, 401", "ship, owner, 403", "ship, other, 403", "ship, operator, 200",
            "deliver, none, 401", "deliver, owner, 403", "deliver, other, 403", "deliver, operator, 409",
            "cancel, none, 401", "cancel, forged, 401", "cancel, owner, 200", "cancel, other, 404",
            "cancel, operator, 200",
            "anomalies, none, 401", "anomalies, owner, 403", "anomalies, operator, 200",
            "stuck, none, 401", "stuck, owner, 403", "stuck, operator, 200",
            "events, none, 401", "events, owner, 403", "events, operator, 200",
            "webhooks, none, 401", "webhooks, owner, 403", "webhooks, operator, 200",
            "webhook-register, none, 401", "webhook-register, owner, 403",
            "tokens, none, 401", "tokens, owner, 201", "tokens, operator, 403",
            "state-machine, none, 401", "state-machine, owner, 200", "state-machine, operator, 200" })
    void shouldAnswerEachRoleOnEachEndpointAsSpecified(String endpoint, String who, int expected) {
        String owner = newCustomer();
        String orderId = endpoint.equals("ship") ? paidOrderOf(owner) : createOrder(owner);
        long versionBefore = Sql.count("select version from orders where id = ?::uuid", orderId);

        Response response = call(endpoint, as(who, owner), owner, orderId);

        assertEquals(expected, response.statusCode(), response.asString());
        if (expected >= 400) {
            assertEquals("application/problem+json", response.contentType());
            assertEquals(versionBefore, Sql.count("select version from orders where id = ?::uuid", orderId),
                    "a refused call changes nothing");
        }
        if (expected == 401) {
            assertEquals("Bearer", response.header("WWW-Authenticate"));
        }
    }

    private static String paidOrderOf(String owner) {
        String id = createOrder(owner);
        postKeyed(id, "pay", payBody(), newKey()).then().statusCode(200);
        Callbacks.deliver(Callbacks.success(id, AMOUNT, "EUR", "t-" + id))
                .then().statusCode(200);
        return id;
    }
}
