package io.orderflow.security;

import static io.orderflow.support.OrderMother.*;
import static org.hamcrest.Matchers.everyItem;
import static org.hamcrest.Matchers.is;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.orderflow.support.Auth;
import io.orderflow.support.Sql;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.http.ContentType;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * Who a token names: the customer is the token's {@code sub}, whatever {@code upn} or {@code preferred_username} say;
 * tokens without a subject, with both roles or issued in the future are not accepted at all (401), and a token
 * without a role may not issue one-time tokens.
 */
@QuarkusTest
class TokenIdentityTest {

    private static final String TYPES = "https://orderflow.dev/problems/";

    private static Map<String, Object> claims(Object... pairs) {
        Map<String, Object> claims = new LinkedHashMap<>();
        for (int i = 0; i < pairs.length; i += 2) {
            claims.put((String) pairs[i], pairs[i + 1]);
        }
        return claims;
    }

    @Test
    void shouldTakeTheCustomerFromSubNotFromUpnOrPreferredUsername() {
        String victim = newCustomer();
        String victimsOrder = createOrder(victim);
        String attacker = newCustomer();
        String token = Auth.tokenWith(claims("sub", attacker, "upn", victim, "preferred_username", victim,
                "groups", List.of("customer")));

        Auth.bearer(token).get("/orders/" + victimsOrder).then().statusCode(404)
                .body("type", is(TYPES + "not-found"));
        Auth.bearer(token).contentType(ContentType.JSON).body(Map.of("reason", "not mine"))
                .post("/orders/" + victimsOrder + "/cancel").then().statusCode(404);
        Auth.bearer(token).get("/orders").then().statusCode(200).body("items.customerId", everyItem(is(attacker)));
        String own = Auth.bearer(token).contentType(ContentType.JSON).header("Idempotency-Key", newKey())
                .body(orderBody(attacker)).post("/orders").then().statusCode(201).extract().path("id");

        assertEquals("CREATED", Sql.string("select status from orders where id = ?::uuid", victimsOrder),
                "the victim's order is untouched");
        assertEquals(attacker, Sql.string("select customer_id from orders where id = ?::uuid", own));
    }

    @Test
    void shouldRefuseACustomerTokenWithoutSubject() {
        String customer = newCustomer();
        String order = createOrder(customer);
        String token = Auth.tokenWith(claims("upn", customer, "groups", List.of("customer")));

        Auth.bearer(token).get("/orders/" + order).then().statusCode(401)
                .contentType("application/problem+json").body("type", is(TYPES + "unauthorized"));
        Auth.bearer(token).contentType(ContentType.JSON).header("Idempotency-Key", newKey())
                .body(orderBody(customer)).post("/orders").then().statusCode(401);
        assertEquals(1, Sql.count("select count(*) from orders where customer_id = ?", customer));
    }

    @Test
    void shouldRefuseATokenThatIsBothCustomerAndOperator() {
        String customer = newCustomer();
        String paid = paidOrder();
        String token = Auth.tokenWith(claims("sub", customer, "groups", List.of("customer", "operator")));

        Auth.bearer(token).contentType(ContentType.JSON).header("Idempotency-Key", newKey())
                .body(orderBody(customer)).post("/orders").then().statusCode(401)
                .body("type", is(TYPES + "unauthorized"));
        Auth.bearer(token).contentType(ContentType.JSON).body(shipBody()).post("/orders/" + paid + "/ship")
                .then().statusCode(401);
        Auth.bearer(token).get("/orders/" + paid).then().statusCode(401);
        Auth.bearer(token).post("/idempotency-tokens").then().statusCode(401);
        assertEquals(0, Sql.count("select count(*) from orders where customer_id = ?", customer));
        assertEquals(0, Sql.historyCount(paid, "SHIP"));
    }

    @Test
    void shouldRefuseATokenIssuedInTheFutureBeyondTheClockSkew() {
        String customer = newCustomer();
        long now = Instant.now().getEpochSecond();
        String future = Auth.tokenWith(claims("sub", customer, "groups", List.of("customer"),
                "iat", now + 600, "exp", now + 3600));
        String withinSkew = Auth.tokenWith(claims("sub", customer, "groups", List.of("customer"),
                "iat", now + 20, "exp", now + 3600));

        Auth.bearer(future).get("/orders").then().statusCode(401).body("type", is(TYPES + "unauthorized"));
        Auth.bearer(withinSkew).get("/orders").then().statusCode(200);
    }

    @Test
    void shouldLetOnlyCustomersIssueOneTimeTokens() {
        String roleless = Auth.tokenWith(claims("sub", "someone-" + UUID.randomUUID()));
        long before = Sql.count("select count(*) from submit_tokens");

        Auth.bearer(roleless).post("/idempotency-tokens").then().statusCode(403)
                .contentType("application/problem+json").body("type", is(TYPES + "forbidden"));
        Auth.operator().post("/idempotency-tokens").then().statusCode(403);
        Auth.customer(newCustomer()).post("/idempotency-tokens").then().statusCode(201);
        assertEquals(before + 1, Sql.count("select count(*) from submit_tokens"));
    }
}
